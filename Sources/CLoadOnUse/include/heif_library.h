// libheif, loaded on first use (heif_library.c), as ffmpeg_library.h and
// for the same reason: libheif brings its codecs (x265, libde265, dav1d,
// libaom), about 5 ms of every run's start when the executable links it.
// libvips's own HEIF loader is a libvips module that links libheif itself
// and is loaded late too (CVipsShim/vips_modules.c); the dynamic loader maps
// one copy for both. Include this header after libheif's own.
#ifndef HEIF_LIBRARY_H
#define HEIF_LIBRARY_H

#include <libheif/heif.h>
#include <stddef.h>

/// Every libheif function CHeifShim calls.
#define HEIF_FUNCTIONS(X)                                                                                     \
    X(heif_context_alloc)                                                                                     \
    X(heif_context_free)                                                                                      \
    X(heif_context_get_primary_image_handle)                                                                  \
    X(heif_context_read_from_memory_without_copy)                                                             \
    X(heif_context_read_from_reader)                                                                          \
    X(heif_context_set_max_decoding_threads)                                                                  \
    X(heif_context_set_maximum_image_size_limit)                                                              \
    X(heif_decode_image)                                                                                      \
    X(heif_decoding_options_alloc)                                                                            \
    X(heif_decoding_options_free)                                                                             \
    X(heif_image_add_plane)                                                                                   \
    X(heif_image_create)                                                                                      \
    X(heif_image_get_bits_per_pixel_range)                                                                    \
    X(heif_image_get_height)                                                                                  \
    X(heif_image_get_plane)                                                                                   \
    X(heif_image_get_plane_readonly)                                                                          \
    X(heif_image_get_width)                                                                                   \
    X(heif_image_handle_get_chroma_bits_per_pixel)                                                            \
    X(heif_image_handle_get_height)                                                                           \
    X(heif_image_handle_get_list_of_thumbnail_IDs)                                                            \
    X(heif_image_handle_get_luma_bits_per_pixel)                                                              \
    X(heif_image_handle_get_nclx_color_profile)                                                               \
    X(heif_image_handle_get_raw_color_profile)                                                                \
    X(heif_image_handle_get_raw_color_profile_size)                                                           \
    X(heif_image_handle_get_thumbnail)                                                                        \
    X(heif_image_handle_get_width)                                                                            \
    X(heif_image_handle_has_alpha_channel)                                                                    \
    X(heif_image_handle_release)                                                                              \
    X(heif_image_release)                                                                                     \
    X(heif_image_set_nclx_color_profile)                                                                      \
    X(heif_nclx_color_profile_alloc)                                                                          \
    X(heif_nclx_color_profile_free)                                                                           \
    X(heif_nclx_color_profile_set_color_primaries)                                                            \
    X(heif_nclx_color_profile_set_matrix_coefficients)                                                        \
    X(heif_nclx_color_profile_set_transfer_characteristics)                                                   \
    X(heif_register_decoder)

/// The table the calls go through, filled once by heif_library_load.
typedef struct {
#define HEIF_FIELD(name) __typeof__(&name) name;
    HEIF_FUNCTIONS(HEIF_FIELD)
#undef HEIF_FIELD
} heif_functions;

extern heif_functions heif_library;

/// Loads libheif once per process (any thread may call it): 0, or -1 with
/// the loader's message in `error` ("libheif could not be loaded: …").
int heif_library_load(char *error, size_t error_len);

// The calls, through the table (see ffmpeg_library.h).
#define heif_context_alloc(...) heif_library.heif_context_alloc(__VA_ARGS__)
#define heif_context_free(...) heif_library.heif_context_free(__VA_ARGS__)
#define heif_context_get_primary_image_handle(...) heif_library.heif_context_get_primary_image_handle(__VA_ARGS__)
#define heif_context_read_from_memory_without_copy(...) heif_library.heif_context_read_from_memory_without_copy(__VA_ARGS__)
#define heif_context_read_from_reader(...) heif_library.heif_context_read_from_reader(__VA_ARGS__)
#define heif_context_set_max_decoding_threads(...) heif_library.heif_context_set_max_decoding_threads(__VA_ARGS__)
#define heif_context_set_maximum_image_size_limit(...) heif_library.heif_context_set_maximum_image_size_limit(__VA_ARGS__)
#define heif_decode_image(...) heif_library.heif_decode_image(__VA_ARGS__)
#define heif_decoding_options_alloc(...) heif_library.heif_decoding_options_alloc(__VA_ARGS__)
#define heif_decoding_options_free(...) heif_library.heif_decoding_options_free(__VA_ARGS__)
#define heif_image_add_plane(...) heif_library.heif_image_add_plane(__VA_ARGS__)
#define heif_image_create(...) heif_library.heif_image_create(__VA_ARGS__)
#define heif_image_get_bits_per_pixel_range(...) heif_library.heif_image_get_bits_per_pixel_range(__VA_ARGS__)
#define heif_image_get_height(...) heif_library.heif_image_get_height(__VA_ARGS__)
#define heif_image_get_plane(...) heif_library.heif_image_get_plane(__VA_ARGS__)
#define heif_image_get_plane_readonly(...) heif_library.heif_image_get_plane_readonly(__VA_ARGS__)
#define heif_image_get_width(...) heif_library.heif_image_get_width(__VA_ARGS__)
#define heif_image_handle_get_chroma_bits_per_pixel(...) heif_library.heif_image_handle_get_chroma_bits_per_pixel(__VA_ARGS__)
#define heif_image_handle_get_height(...) heif_library.heif_image_handle_get_height(__VA_ARGS__)
#define heif_image_handle_get_list_of_thumbnail_IDs(...) heif_library.heif_image_handle_get_list_of_thumbnail_IDs(__VA_ARGS__)
#define heif_image_handle_get_luma_bits_per_pixel(...) heif_library.heif_image_handle_get_luma_bits_per_pixel(__VA_ARGS__)
#define heif_image_handle_get_nclx_color_profile(...) heif_library.heif_image_handle_get_nclx_color_profile(__VA_ARGS__)
#define heif_image_handle_get_raw_color_profile(...) heif_library.heif_image_handle_get_raw_color_profile(__VA_ARGS__)
#define heif_image_handle_get_raw_color_profile_size(...) heif_library.heif_image_handle_get_raw_color_profile_size(__VA_ARGS__)
#define heif_image_handle_get_thumbnail(...) heif_library.heif_image_handle_get_thumbnail(__VA_ARGS__)
#define heif_image_handle_get_width(...) heif_library.heif_image_handle_get_width(__VA_ARGS__)
#define heif_image_handle_has_alpha_channel(...) heif_library.heif_image_handle_has_alpha_channel(__VA_ARGS__)
#define heif_image_handle_release(...) heif_library.heif_image_handle_release(__VA_ARGS__)
#define heif_image_release(...) heif_library.heif_image_release(__VA_ARGS__)
#define heif_image_set_nclx_color_profile(...) heif_library.heif_image_set_nclx_color_profile(__VA_ARGS__)
#define heif_nclx_color_profile_alloc(...) heif_library.heif_nclx_color_profile_alloc(__VA_ARGS__)
#define heif_nclx_color_profile_free(...) heif_library.heif_nclx_color_profile_free(__VA_ARGS__)
#define heif_nclx_color_profile_set_color_primaries(...) heif_library.heif_nclx_color_profile_set_color_primaries(__VA_ARGS__)
#define heif_nclx_color_profile_set_matrix_coefficients(...) heif_library.heif_nclx_color_profile_set_matrix_coefficients(__VA_ARGS__)
#define heif_nclx_color_profile_set_transfer_characteristics(...) heif_library.heif_nclx_color_profile_set_transfer_characteristics(__VA_ARGS__)
#define heif_register_decoder(...) heif_library.heif_register_decoder(__VA_ARGS__)

#endif
