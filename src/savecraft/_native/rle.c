/*
 * savecraft._native.rle: run-length walks that cannot be done on whole arrays.
 *
 * TirNanoG's tile RLE is a chain of packets in which each header says where the
 * next one starts, so finding the packets is a sequential walk; in Python it
 * costs ~60 ns a packet, about 4x the whole zlib inflate of a typical map
 * (bench/bench_tng_maps.py: the numpy path takes 3.8x the time of this one).
 * The functions here only walk and copy: all checking of results and every
 * error message stay in Python (savecraft/formats/tirnanog/rle.py), which also
 * keeps a numpy path for machines where this module could not be compiled.
 *
 * Angband's level layers are (count, byte) pairs; rle_cover finds how many of
 * them cover a level (savecraft/formats/angband/layouts/levels.py): ~1 us here
 * against 10 to 20 us for numpy's cumsum, 1.24x of a whole Vanilla 4.2 parse.
 *
 * Status codes shared by both TirNanoG functions:
 *   0 = whole stream, 1 = the packet at `pos` is cut short by the end of the data,
 *   2 = the packet at `pos` would take the output past `cap` values (its end in `total`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "version.h"

/* rle_count(src) -> (status, pos, total): the number of values a stream holds. */
static PyObject *
rle_count(PyObject *self, PyObject *args)
{
    Py_buffer src;
    if (!PyArg_ParseTuple(args, "y*", &src))
        return NULL;
    const uint8_t *p = (const uint8_t *)src.buf;
    Py_ssize_t n = src.len, pos = 0;
    long long total = 0;
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        uint8_t h = p[pos];
        Py_ssize_t size = (h & 0x80) ? 3 : 2 * (Py_ssize_t)h + 3;
        if (pos + size > n) { status = 1; break; }
        total += (h & 0x7F) + 1;
        pos += size;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    return Py_BuildValue("inL", status, pos, total);
}

/* rle_decode(src, dst) -> (status, pos, filled): values into a writable uint16 buffer. */
static PyObject *
rle_decode(PyObject *self, PyObject *args)
{
    Py_buffer src, dst;
    if (!PyArg_ParseTuple(args, "y*w*", &src, &dst))
        return NULL;
    if (dst.len % 2 != 0) {
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        PyErr_SetString(PyExc_ValueError, "dst must hold whole 16-bit values");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)src.buf;
    uint16_t *out = (uint16_t *)dst.buf;
    Py_ssize_t n = src.len, cap = dst.len / 2, pos = 0, filled = 0;
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        uint8_t h = p[pos];
        Py_ssize_t run = (h & 0x7F) + 1;
        if (h & 0x80) {
            if (pos + 3 > n) { status = 1; break; }
            if (filled + run > cap) { status = 2; filled += run; break; }
            uint16_t v = (uint16_t)(p[pos + 1] | (p[pos + 2] << 8));
            uint16_t *o = out + filled;
            for (Py_ssize_t i = 0; i < run; i++)  /* vectorised by the compiler at -O3 */
                o[i] = v;
            pos += 3;
        } else {
            Py_ssize_t size = 2 * run + 1;
            if (pos + size > n) { status = 1; break; }
            if (filled + run > cap) { status = 2; filled += run; break; }
            const uint8_t *q = p + pos + 1;
#if PY_LITTLE_ENDIAN
            memcpy(out + filled, q, (size_t)run * 2);  /* the words are already in host order */
#else
            for (Py_ssize_t i = 0; i < run; i++)
                out[filled + i] = (uint16_t)(q[2 * i] | (q[2 * i + 1] << 8));
#endif
            pos += size;
        }
        filled += run;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    return Py_BuildValue("inn", status, pos, filled);
}


/*
 * rle_cover(data, pos, end, cells[, stride]) -> int: how many (count, byte) pairs from
 * `pos` it takes to cover `cells` squares (an Angband level map layer), or -1
 * when the pairs up to `end` cover fewer. `stride` (2 by default): the size of one
 * run, its count first (PWMAngband's terrain: a u8 count and a u16 feature, 3).
 */
static PyObject *
rle_cover(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t pos, end, cells, stride = 2;
    if (!PyArg_ParseTuple(args, "y*nnn|n", &view, &pos, &end, &cells, &stride))
        return NULL;
    if (stride < 1) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "rle_cover: stride must be at least 1");
        return NULL;
    }
    if (end > view.len)
        end = view.len;
    const uint8_t *p = (const uint8_t *)view.buf;
    Py_ssize_t pairs = -1, done = 0;
    for (Py_ssize_t i = pos; i >= 0 && i + stride - 1 < end && cells > 0; i += stride) {
        done += p[i];
        if (done >= cells) {
            pairs = (i - pos) / stride + 1;
            break;
        }
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(cells > 0 ? pairs : 0);
}


static PyMethodDef methods[] = {
    {"rle_count", rle_count, METH_VARARGS, "Count the values of a TirNanoG RLE stream."},
    {"rle_decode", rle_decode, METH_VARARGS, "Decode a TirNanoG RLE stream into a uint16 buffer."},
    {"rle_cover", rle_cover, METH_VARARGS, "The runs (count first) that cover a number of cells."},
    {NULL, NULL, 0, NULL},
};

SAVECRAFT_STATELESS_MODULE(rle, "Run-length walks: TirNanoG tile streams, Angband level layers.")
