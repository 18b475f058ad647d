/* YAML text -> Python values straight from libyaml's event parser: netpol.loading.yamlread's fast path.
 *
 * Why C: building Python objects in Python on top of PyYAML's CParser cannot go below libyaml's parse plus
 * one Python event/node object per YAML node (issue 9, notes/old/issue-9-reader.md). Here libyaml's events
 * become dict/list/str values directly, with PyYAML's SafeLoader semantics:
 *   - a plain scalar whose first character can start an implicit YAML 1.1 type (the table comes from
 *     PyYAML's own Resolver) is resolved by a Python callback (PyYAML's resolver and SafeConstructor), once
 *     per distinct spelling; every other scalar is a str;
 *   - anchors/aliases give the same shared object, and the nodes aliases stand for are counted exactly as
 *     yamlread's Python path counts them.
 * Anything this code does not reproduce itself raises `Unusual`, and the caller reads the whole text with the
 * Python path (which gives the value or the exact error): explicit tags other than !!str/!!map/!!seq, merge
 * keys, duplicate keys (their paths are named by the Python path), complex keys, duplicate or recursive
 * anchors, any parse error, and every limit (depth, documents, alias expansion). The parser is iterative, so
 * no input nests the C stack.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <yaml.h>

#define TAG_STR "tag:yaml.org,2002:str"
#define TAG_MAP "tag:yaml.org,2002:map"
#define TAG_SEQ "tag:yaml.org,2002:seq"

static PyObject *Unusual;  /* exception: "read this text with the Python path" */

typedef struct {
    PyObject *obj;       /* the dict or list being filled (owned) */
    PyObject *key;       /* a mapping's pending key (owned) or NULL */
    Py_ssize_t size;     /* nodes so far, aliases counted in full */
    Py_ssize_t anchor;   /* index into anchors, or -1 */
    int is_map;
} Frame;

typedef struct {
    PyObject *value;     /* owned */
    Py_ssize_t size;
    int open;            /* its collection is still being read: an alias to it would recurse */
    int is_container;
} Anchor;

typedef struct {
    yaml_parser_t parser;
    Frame *stack;
    Py_ssize_t depth, stack_cap;
    Anchor *anchors;
    Py_ssize_t n_anchors, anchors_cap;
    PyObject *anchor_index;       /* dict: anchor name (bytes) -> index into anchors, this document's */
    Py_ssize_t repeated;          /* nodes aliases stand for in this document */
    Py_ssize_t max_depth, max_alias;
    PyObject *docs;               /* result list */
    PyObject *root;               /* the document's value once read (owned) */
    PyObject *plain;              /* dict: spelling -> resolved value (plain scalars that need resolving) */
    PyObject *resolve;            /* callback(str) -> value, raises Unusual */
    const char *special;          /* 256 flags: first bytes that can start an implicit non-str type */
    PyObject **strings;           /* STRING_SLOTS recent short ASCII strings, by hash (owned or NULL) */
} State;

/* Kubernetes documents repeat the same short strings (keys, label values, kinds) thousands of times: one
 * shared str each saves memory, an allocation and, as a dict key, the hashing (a str caches its hash). */
#define STRING_SLOTS 8192
#define STRING_MAX 40

static PyObject *short_string(State *st, const char *value, Py_ssize_t length) {
    if (length > STRING_MAX)
        return PyUnicode_DecodeUTF8(value, length, "strict");
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)value[i];
        if (c >= 0x80)
            return PyUnicode_DecodeUTF8(value, length, "strict");
        h = (h ^ c) * 16777619u;
    }
    PyObject **slot = &st->strings[h & (STRING_SLOTS - 1)];
    PyObject *s = *slot;
    if (s != NULL && PyUnicode_GET_LENGTH(s) == length && memcmp(PyUnicode_DATA(s), value, (size_t)length) == 0) {
        Py_INCREF(s);
        return s;
    }
    s = PyUnicode_FromStringAndSize(value, length);
    if (s == NULL)
        return NULL;
    Py_XSETREF(*slot, s);
    Py_INCREF(s);
    return s;
}

static int unusual(void) {
    PyErr_SetNone(Unusual);
    return -1;
}

static void clear_anchors(State *st) {
    for (Py_ssize_t i = 0; i < st->n_anchors; i++)
        Py_DECREF(st->anchors[i].value);
    st->n_anchors = 0;
    if (st->anchor_index != NULL)
        PyDict_Clear(st->anchor_index);
}

/* The index of anchor `name` in this document, -1 when there is none, -2 with an exception set. */
static Py_ssize_t find_anchor(State *st, const char *name, PyObject **key_out) {
    PyObject *key = PyBytes_FromString(name);
    if (key == NULL)
        return -2;
    PyObject *found = PyDict_GetItemWithError(st->anchor_index, key);
    Py_ssize_t index = -1;
    if (found != NULL)
        index = PyLong_AsSsize_t(found);
    else if (PyErr_Occurred())
        index = -2;
    if (key_out != NULL && index == -1)
        *key_out = key;
    else
        Py_DECREF(key);
    return index;
}

static Py_ssize_t add_anchor(State *st, const char *name, PyObject *value, int open, int is_container) {
    PyObject *key = NULL;
    Py_ssize_t found = find_anchor(st, name, &key);
    if (found == -2)
        return -1;
    if (found >= 0)
        return unusual();  /* PyYAML: "found duplicate anchor" */
    PyObject *index = PyLong_FromSsize_t(st->n_anchors);
    int rc = index == NULL ? -1 : PyDict_SetItem(st->anchor_index, key, index);
    Py_DECREF(key);
    Py_XDECREF(index);
    if (rc < 0)
        return -1;
    if (st->n_anchors == st->anchors_cap) {
        Py_ssize_t cap = st->anchors_cap ? 2 * st->anchors_cap : 16;
        Anchor *a = PyMem_Realloc(st->anchors, (size_t)cap * sizeof(Anchor));
        if (a == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        st->anchors = a;
        st->anchors_cap = cap;
    }
    Anchor *a = &st->anchors[st->n_anchors];
    Py_INCREF(value);
    a->value = value;
    a->size = 1;
    a->open = open;
    a->is_container = is_container;
    return st->n_anchors++;
}

/* A finished node (a new reference, stolen) goes into its parent, or becomes the document. */
static int emit(State *st, PyObject *value, Py_ssize_t size, int is_container) {
    if (st->depth == 0) {
        st->root = value;
        return 0;
    }
    Frame *top = &st->stack[st->depth - 1];
    top->size += size;
    if (!top->is_map) {
        int rc = PyList_Append(top->obj, value);
        Py_DECREF(value);
        return rc;
    }
    if (top->key == NULL) {
        if (is_container) {  /* a mapping or list as a key: unhashable, the Python path says so */
            Py_DECREF(value);
            return unusual();
        }
        top->key = value;
        return 0;
    }
    Py_ssize_t before = PyDict_GET_SIZE(top->obj);
    int rc = PyDict_SetItem(top->obj, top->key, value);
    Py_DECREF(value);
    Py_CLEAR(top->key);
    if (rc < 0)
        return -1;
    if (PyDict_GET_SIZE(top->obj) == before)  /* a key given twice: the Python path records its path */
        return unusual();
    return 0;
}

static PyObject *scalar_value(State *st, yaml_event_t *ev) {
    const char *value = (const char *)ev->data.scalar.value;
    Py_ssize_t length = (Py_ssize_t)ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag != NULL) {
        if (strcmp(tag, TAG_STR) != 0) {
            unusual();
            return NULL;
        }
        return short_string(st, value, length);
    }
    if (!ev->data.scalar.plain_implicit || (length > 0 && !st->special[(unsigned char)value[0]]))
        return short_string(st, value, length);
    PyObject *text = short_string(st, value, length);
    if (text == NULL)
        return NULL;
    PyObject *known = PyDict_GetItemWithError(st->plain, text);
    if (known != NULL) {
        Py_DECREF(text);
        Py_INCREF(known);
        return known;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(text);
        return NULL;
    }
    PyObject *resolved = PyObject_CallOneArg(st->resolve, text);
    if (resolved == NULL || PyDict_SetItem(st->plain, text, resolved) < 0) {
        Py_DECREF(text);
        Py_XDECREF(resolved);
        return NULL;
    }
    Py_DECREF(text);
    return resolved;
}

static int push(State *st, yaml_event_t *ev, int is_map) {
    const char *tag = (const char *)(is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    const char *anchor = (const char *)(is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
    if (tag != NULL && strcmp(tag, is_map ? TAG_MAP : TAG_SEQ) != 0)
        return unusual();
    if (st->depth >= st->max_depth)
        return unusual();  /* the Python path names the limit and the place */
    if (st->depth == st->stack_cap) {
        Py_ssize_t cap = st->stack_cap ? 2 * st->stack_cap : 32;
        Frame *s = PyMem_Realloc(st->stack, (size_t)cap * sizeof(Frame));
        if (s == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        st->stack = s;
        st->stack_cap = cap;
    }
    PyObject *obj = is_map ? PyDict_New() : PyList_New(0);
    if (obj == NULL)
        return -1;
    Py_ssize_t index = -1;
    if (anchor != NULL) {
        index = add_anchor(st, anchor, obj, 1, 1);
        if (index < 0) {
            Py_DECREF(obj);
            return -1;
        }
    }
    Frame *f = &st->stack[st->depth++];
    f->obj = obj;
    f->key = NULL;
    f->size = 1;
    f->anchor = index;
    f->is_map = is_map;
    return 0;
}

static int pop(State *st) {
    Frame *f = &st->stack[--st->depth];
    PyObject *obj = f->obj;
    Py_ssize_t size = f->size;
    Py_XDECREF(f->key);  /* cannot be set: libyaml always gives a mapping's value */
    if (f->anchor >= 0) {
        st->anchors[f->anchor].size = size;
        st->anchors[f->anchor].open = 0;
    }
    return emit(st, obj, size, 1);
}

static int alias(State *st, yaml_event_t *ev) {
    Py_ssize_t i = find_anchor(st, (const char *)ev->data.alias.anchor, NULL);
    if (i == -2)
        return -1;
    if (i == -1)
        return unusual();  /* an undefined alias */
    Anchor *a = &st->anchors[i];
    if (a->open)
        return unusual();  /* a node containing its own alias */
    if (a->is_container && st->depth >= st->max_depth)
        return unusual();
    st->repeated += a->size;
    if (st->repeated > st->max_alias)
        return unusual();  /* an alias bomb: the Python path names it */
    Py_INCREF(a->value);
    return emit(st, a->value, a->size, a->is_container);
}

static void unwind(State *st) {
    while (st->depth > 0) {
        Frame *f = &st->stack[--st->depth];
        Py_DECREF(f->obj);
        Py_XDECREF(f->key);
    }
    Py_CLEAR(st->root);
    clear_anchors(st);
}

/* One event; returns 1 at the end of the stream, 0 to go on, -1 with an exception set. */
static int step(State *st, yaml_event_t *ev, Py_ssize_t max_documents) {
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        PyObject *v = scalar_value(st, ev);
        if (v == NULL)
            return -1;
        if (ev->data.scalar.anchor != NULL && add_anchor(st, (const char *)ev->data.scalar.anchor, v, 0, 0) < 0) {
            Py_DECREF(v);
            return -1;
        }
        return emit(st, v, 1, 0);
    }
    case YAML_MAPPING_START_EVENT:
        return push(st, ev, 1);
    case YAML_SEQUENCE_START_EVENT:
        return push(st, ev, 0);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        return pop(st);
    case YAML_ALIAS_EVENT:
        return alias(st, ev);
    case YAML_DOCUMENT_START_EVENT:
        if (PyList_GET_SIZE(st->docs) >= max_documents)
            return unusual();
        return 0;
    case YAML_DOCUMENT_END_EVENT: {
        if (st->root == NULL)
            return unusual();  /* cannot happen: libyaml gives every document a node */
        int rc = PyList_Append(st->docs, st->root);
        Py_CLEAR(st->root);
        clear_anchors(st);
        st->repeated = 0;
        return rc;
    }
    case YAML_STREAM_END_EVENT:
        return 1;
    default:
        return 0;
    }
}

PyDoc_STRVAR(load_doc,
             "load(text, special, resolve, max_depth, max_documents, max_alias_nodes) -> list\n\n"
             "Every document's value, or raises Unusual when the Python path must read the text.");

static PyObject *load(PyObject *self, PyObject *args) {
    PyObject *text, *resolve;
    const char *special;
    Py_ssize_t special_len, max_depth, max_documents, max_alias;
    if (!PyArg_ParseTuple(args, "Uy#Onnn:load", &text, &special, &special_len, &resolve, &max_depth,
                          &max_documents, &max_alias))
        return NULL;
    if (special_len != 256) {
        PyErr_SetString(PyExc_ValueError, "special must be 256 bytes");
        return NULL;
    }
    Py_ssize_t size;
    const char *data = PyUnicode_AsUTF8AndSize(text, &size);
    if (data == NULL) {  /* lone surrogates: the Python path reports them */
        PyErr_Clear();
        unusual();
        return NULL;
    }
    State st;
    memset(&st, 0, sizeof st);
    st.max_depth = max_depth;
    st.max_alias = max_alias;
    st.resolve = resolve;
    st.special = special;
    st.docs = PyList_New(0);
    st.plain = PyDict_New();
    st.anchor_index = PyDict_New();
    st.strings = PyMem_Calloc(STRING_SLOTS, sizeof(PyObject *));
    if (st.docs == NULL || st.plain == NULL || st.anchor_index == NULL || st.strings == NULL ||
        !yaml_parser_initialize(&st.parser)) {
        Py_XDECREF(st.docs);
        Py_XDECREF(st.plain);
        Py_XDECREF(st.anchor_index);
        PyMem_Free(st.strings);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    /* As PyYAML's CParser reads a str: its UTF-8 bytes, the encoding detected by libyaml. */
    yaml_parser_set_input_string(&st.parser, (const unsigned char *)data, (size_t)size);
    /* Containers are only added here, never cycles: the cyclic GC would walk every one of them again and
     * again as they are made (two thirds of the time on a 10k-pod file) to find nothing. */
    int gc_was_enabled = PyGC_Disable();
    int rc = 0;
    while (rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&st.parser, &ev)) {
            if (st.parser.error == YAML_MEMORY_ERROR)
                PyErr_NoMemory();
            else
                unusual();  /* the Python path gives libyaml's message with its position */
            rc = -1;
            break;
        }
        rc = step(&st, &ev, max_documents);
        yaml_event_delete(&ev);
    }
    if (gc_was_enabled)
        PyGC_Enable();
    yaml_parser_delete(&st.parser);
    unwind(&st);
    PyMem_Free(st.stack);
    PyMem_Free(st.anchors);
    Py_DECREF(st.anchor_index);
    Py_DECREF(st.plain);
    for (Py_ssize_t i = 0; i < STRING_SLOTS; i++)
        Py_XDECREF(st.strings[i]);
    PyMem_Free(st.strings);
    if (rc < 0) {
        Py_DECREF(st.docs);
        return NULL;
    }
    return st.docs;
}

static PyMethodDef methods[] = {
    {"load", load, METH_VARARGS, load_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kyaml", "libyaml events -> Python values (see netpol.loading.yamlread).", -1, methods,
};

PyMODINIT_FUNC PyInit__kyaml(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Unusual = PyErr_NewExceptionWithDoc("netpol.loading._kyaml.Unusual",
                                        "The text needs the Python path (a limit, an error, a rare construct).",
                                        NULL, NULL);
    if (Unusual == NULL || PyModule_AddObjectRef(m, "Unusual", Unusual) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *version = PyUnicode_FromString(yaml_get_version_string());
    if (version == NULL || PyModule_AddObject(m, "LIBYAML_VERSION", version) < 0) {
        Py_XDECREF(version);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
