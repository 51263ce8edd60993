/*
 * savecraft._speedups: the few inner loops that cannot be written on whole arrays.
 *
 * TirNanoG's tile RLE is a chain of packets in which each header says where the
 * next one starts, so finding the packets is a sequential walk; in Python it
 * costs ~60 ns a packet, about 4x the whole zlib inflate of a typical map. The
 * functions here only walk and copy: all checking of results and every error
 * message stay in Python (savecraft/formats/tirnanog/rle.py), which also keeps a
 * pure numpy path for machines where this module could not be compiled.
 *
 * The network helpers (xor_repeat, send_datagrams) serve the TirNanoG server's
 * send path: tens of thousands of datagrams a second, each XORed with its
 * session token and sent to its own address. savecraft/net/crypto.py and
 * savecraft/net/sender.py hold the Python equivalents, used when this is absent.
 *
 * Status codes shared by both RLE functions:
 *   0 = whole stream, 1 = the packet at `pos` is cut short by the end of the data,
 *   2 = the packet at `pos` would take the output past `cap` values (its end in `total`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#ifdef __linux__
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#endif

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


/* xor_repeat(data, key) -> bytes: data XOR the key repeated (the session cipher). */
static PyObject *
xor_repeat(PyObject *self, PyObject *args)
{
    Py_buffer data, key;
    if (!PyArg_ParseTuple(args, "y*y*", &data, &key))
        return NULL;
    PyObject *out = NULL;
    if (key.len == 0) {
        PyErr_SetString(PyExc_ValueError, "the key is empty");
    } else if ((out = PyBytes_FromStringAndSize(NULL, data.len)) != NULL) {
        uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
        const uint8_t *d = (const uint8_t *)data.buf, *k = (const uint8_t *)key.buf;
        for (Py_ssize_t off = 0; off < data.len; off += key.len) {
            Py_ssize_t m = data.len - off < key.len ? data.len - off : key.len;
            for (Py_ssize_t j = 0; j < m; j++)  /* vectorised by the compiler at -O3 */
                o[off + j] = d[off + j] ^ k[j];
        }
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&key);
    return out;
}

#ifdef __linux__
#define SEND_BATCH 256  /* messages per sendmmsg call (the kernel takes at most 1024) */

/* ("host", port) with host an IPv4 or IPv6 literal -> sockaddr. 0, or -1 with an exception. */
static int
to_sockaddr(PyObject *addr, struct sockaddr_storage *sa, socklen_t *len)
{
    if (!PyTuple_Check(addr) || PyTuple_GET_SIZE(addr) < 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(addr, 0)) || !PyLong_Check(PyTuple_GET_ITEM(addr, 1))) {
        PyErr_SetString(PyExc_TypeError, "an address is a (host, port) tuple");
        return -1;
    }
    const char *host = PyUnicode_AsUTF8(PyTuple_GET_ITEM(addr, 0));
    long port = PyLong_AsLong(PyTuple_GET_ITEM(addr, 1));
    if (host == NULL || (port == -1 && PyErr_Occurred()))
        return -1;
    if (port < 0 || port > 65535) {
        PyErr_Format(PyExc_ValueError, "port %ld is not 0 to 65535", port);
        return -1;
    }
    memset(sa, 0, sizeof(*sa));
    struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof(*v4);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*v6);
    } else {
        PyErr_Format(PyExc_ValueError, "not a numeric IP address: %s", host);
        return -1;
    }
    return 0;
}

/*
 * send_datagrams(fd, datagrams, addresses, start) -> (next, errno)
 *
 * Sends datagrams[start:] to the matching addresses with sendmmsg, the GIL
 * released. `next` is the index of the first datagram not sent: len(datagrams)
 * with errno 0 when all went, else the errno that stopped the batch at `next`
 * (EAGAIN: the socket buffer is full; anything else concerns that datagram
 * alone, and the caller may go on from next + 1).
 */
static PyObject *
send_datagrams(PyObject *self, PyObject *args)
{
    int fd;
    PyObject *dgrams, *addrs;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "iOOn", &fd, &dgrams, &addrs, &start))
        return NULL;
    /* tuples: they keep every datagram and address alive while the GIL is released */
    PyObject *ds = PySequence_Tuple(dgrams);
    PyObject *as = ds ? PySequence_Tuple(addrs) : NULL;
    Py_ssize_t n = ds ? PyTuple_GET_SIZE(ds) : 0;
    struct mmsghdr *msgs = NULL;
    struct iovec *iov = NULL;
    struct sockaddr_storage *sas = NULL;
    PyObject *result = NULL;
    if (as == NULL)
        goto done;
    if (PyTuple_GET_SIZE(as) != n) {
        PyErr_SetString(PyExc_ValueError, "as many addresses as datagrams are needed");
        goto done;
    }
    if (start < 0 || start > n) {
        PyErr_SetString(PyExc_ValueError, "start is outside the datagrams");
        goto done;
    }
    Py_ssize_t count = n - start;
    if (count == 0) {
        result = Py_BuildValue("ni", n, 0);
        goto done;
    }
    msgs = PyMem_Calloc((size_t)count, sizeof(*msgs));
    iov = PyMem_Calloc((size_t)count, sizeof(*iov));
    sas = PyMem_Calloc((size_t)count, sizeof(*sas));
    if (msgs == NULL || iov == NULL || sas == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *d = PyTuple_GET_ITEM(ds, start + i);
        if (!PyBytes_Check(d)) {
            PyErr_SetString(PyExc_TypeError, "datagrams are bytes");
            goto done;
        }
        socklen_t len;
        if (to_sockaddr(PyTuple_GET_ITEM(as, start + i), &sas[i], &len) < 0)
            goto done;
        iov[i].iov_base = PyBytes_AS_STRING(d);
        iov[i].iov_len = (size_t)PyBytes_GET_SIZE(d);
        msgs[i].msg_hdr.msg_name = &sas[i];
        msgs[i].msg_hdr.msg_namelen = len;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    Py_ssize_t done_count = 0;
    int err = 0;
    Py_BEGIN_ALLOW_THREADS
    while (done_count < count) {
        unsigned int batch = (unsigned int)(count - done_count < SEND_BATCH ?
                                            count - done_count : SEND_BATCH);
        int r = sendmmsg(fd, msgs + done_count, batch, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        done_count += r;
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("ni", start + done_count, err);
done:
    PyMem_Free(msgs);
    PyMem_Free(iov);
    PyMem_Free(sas);
    Py_XDECREF(ds);
    Py_XDECREF(as);
    return result;
}
#endif

static PyMethodDef methods[] = {
    {"rle_count", rle_count, METH_VARARGS, "Count the values of a TirNanoG RLE stream."},
    {"rle_decode", rle_decode, METH_VARARGS, "Decode a TirNanoG RLE stream into a uint16 buffer."},
    {"xor_repeat", xor_repeat, METH_VARARGS, "XOR data with a key repeated over it."},
#ifdef __linux__
    {"send_datagrams", send_datagrams, METH_VARARGS,
     "Send datagrams to their addresses with sendmmsg, the GIL released."},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "savecraft._speedups",
    "Compiled inner loops; savecraft works without them, only slower.", -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module);
}
