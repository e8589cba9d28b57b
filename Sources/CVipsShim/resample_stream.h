/* Internal to CVipsShim: resample.c's Lanczos3 fed one input row at a time,
 * in order, by a decoder (jpeg_prog.c at 1/1), so that the decoded image is
 * never held whole: only the input rows the next strip of output reads. */
#ifndef RESAMPLE_STREAM_H
#define RESAMPLE_STREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct resample_stream resample_stream;

/* A stream from in_w x in_h to out_w x out_h (both sides smaller) into
 * `out` (out_w * out_h * bands bytes, rows packed), or NULL. */
resample_stream *resample_stream_new(int in_w, int in_h, int bands, uint8_t *out, int out_w, int out_h);

/* Where the next input row is to be written (in_w * bands bytes). */
uint8_t *resample_stream_row(resample_stream *s);

/* That row is written: makes every strip of output whose rows are all in. */
void resample_stream_push(resample_stream *s);

/* Whether every output row is made (every input row was pushed). */
int resample_stream_done(const resample_stream *s);

void resample_stream_free(resample_stream *s);

/* What a stream holds besides `out`: its input rows, scratch and taps; 0
 * for arguments it does not take. */
size_t resample_stream_bytes(int in_w, int in_h, int bands, int out_w, int out_h);

#endif
