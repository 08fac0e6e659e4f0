#!/bin/bash
# issue 27 item 2: unquoted unknowns split; defaults; arrays holding unknowns; $'...' escapes
A=(--lr $LR "$B" ${C:-1e-4} $'\x27\047\ca\c?\u41\0gone')
S="x $EXTRA_ARGS"
torchrun pretrain_gpt.py --num-layers 4 $EXTRA_ARGS "${A[@]}" ${A[@]} "${A[*]}" ${#A[@]} ${A[1]} $S "$S" \
    ${D:+--d} ${E-} "${F:=f}" $F "$@" $* $# ''$G $H""
