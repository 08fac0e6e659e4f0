# Embeds layouts/seed-2x8-ep16.json (the default layout of `plan-layout analyze`) as a string.
# Regenerated whenever the data file changes; the data file stays the single source.
set(PLANLAYOUT_DEFAULT_LAYOUT ${CMAKE_CURRENT_SOURCE_DIR}/layouts/seed-2x8-ep16.json)
set(PLANLAYOUT_EMBED_HEADER ${PLANLAYOUT_GENERATED}/planlayout_embedded_layout.hpp)
file(MAKE_DIRECTORY ${PLANLAYOUT_GENERATED})
if(EXISTS ${PLANLAYOUT_DEFAULT_LAYOUT})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PLANLAYOUT_DEFAULT_LAYOUT})
    file(READ ${PLANLAYOUT_DEFAULT_LAYOUT} PLANLAYOUT_LAYOUT_TEXT)
else()
    set(PLANLAYOUT_LAYOUT_TEXT "{}")
endif()
file(WRITE ${PLANLAYOUT_EMBED_HEADER}.in
"// Generated from layouts/seed-2x8-ep16.json by cmake/planlayout_embed.cmake. Do not edit.
#pragma once
namespace planlayout {
inline constexpr const char* kEmbeddedLayoutName = \"layouts/seed-2x8-ep16.json (embedded)\";
inline constexpr const char* kEmbeddedLayout = R\"PLJSON(@PLANLAYOUT_LAYOUT_TEXT@)PLJSON\";
}  // namespace planlayout
")
configure_file(${PLANLAYOUT_EMBED_HEADER}.in ${PLANLAYOUT_EMBED_HEADER} @ONLY)

# Every JSON file of a layouts/ folder compiled in as {stem, text} pairs, so built-in names
# resolve anywhere: planlayout_embed_folder(FOLDER HEADER STRUCT ARRAY).
function(planlayout_embed_folder folder header struct array)
    file(GLOB files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/layouts/${folder}/*.json)
    list(SORT files)
    set(PLANLAYOUT_EMBED_BODY "")
    foreach(f ${files})
        get_filename_component(stem ${f} NAME_WE)
        # GLOB's CONFIGURE_DEPENDS notices files added or removed; this notices a file edited.
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
        file(READ ${f} body)
        string(APPEND PLANLAYOUT_EMBED_BODY "    {\"${stem}\", R\"PLJSON(${body})PLJSON\"},\n")
    endforeach()
    file(WRITE ${PLANLAYOUT_GENERATED}/${header}.in
"// Generated from layouts/${folder}/*.json by cmake/planlayout_embed.cmake. Do not edit.
#pragma once
namespace planlayout {
struct ${struct} {
    const char* name;
    const char* text;
};
inline constexpr ${struct} ${array}[] = {
@PLANLAYOUT_EMBED_BODY@};
}  // namespace planlayout
")
    configure_file(${PLANLAYOUT_GENERATED}/${header}.in ${PLANLAYOUT_GENERATED}/${header} @ONLY)
endfunction()

# The node templates (layouts/nodes/) and the GPU specs (layouts/gpus/: the compute model's peaks
# and bandwidths).
planlayout_embed_folder(nodes planlayout_embedded_nodes.hpp EmbeddedNode kEmbeddedNodes)
planlayout_embed_folder(gpus planlayout_embedded_gpus.hpp EmbeddedGpu kEmbeddedGpus)
# The measured kernel tables (layouts/kernels/: tests/gpu/kernel_table.py builds them from the GPU runs).
planlayout_embed_folder(kernels planlayout_embedded_kernels.hpp EmbeddedKernels kEmbeddedKernels)

# The diagram style viz/style.json is compiled in too (issue 6): one place for colours and dashes.
set(PLANLAYOUT_STYLE_FILE ${CMAKE_CURRENT_SOURCE_DIR}/viz/style.json)
if(EXISTS ${PLANLAYOUT_STYLE_FILE})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PLANLAYOUT_STYLE_FILE})
    file(READ ${PLANLAYOUT_STYLE_FILE} PLANLAYOUT_STYLE_TEXT)
else()
    set(PLANLAYOUT_STYLE_TEXT "{}")
endif()
file(WRITE ${PLANLAYOUT_GENERATED}/planlayout_embedded_style.hpp.in
"// Generated from viz/style.json by cmake/planlayout_embed.cmake. Do not edit.
#pragma once
namespace planlayout {
inline constexpr const char* kEmbeddedStyleName = \"viz/style.json (embedded)\";
inline constexpr const char* kEmbeddedStyle = R\"PLJSON(@PLANLAYOUT_STYLE_TEXT@)PLJSON\";
}  // namespace planlayout
")
configure_file(${PLANLAYOUT_GENERATED}/planlayout_embedded_style.hpp.in ${PLANLAYOUT_GENERATED}/planlayout_embedded_style.hpp @ONLY)
