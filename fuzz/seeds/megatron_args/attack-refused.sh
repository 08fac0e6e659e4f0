#!/bin/bash
# issue 27: constructs refused in a training command: $(...), ${X#a}, braces, ~, set --, IFS, ;&
set -- a b
unset Y
torchrun pretrain_gpt.py $(date) `id` ${X#a} ${X/a/b} ${X:1:2} {a,b} x{1..3} ~/d --p=~/x $1 $$ $? ${Y:?no} "$Y"
IFS=:
case x in x) ;& y) ;; esac
