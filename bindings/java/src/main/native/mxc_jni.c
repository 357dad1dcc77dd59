/* libmxc_jni.so: the JNI glue between org.mxnetcpp.Native and libmxc's C ABI (mxc_*). It calls
 * nothing but the C ABI. Each function marshals Java values to C, makes the call(s), and turns a
 * failed mxc_status into an org.mxnetcpp.MXNetException (code + the C ABI's message). Strings
 * cross as real UTF-8 (converted from/to UTF-16 here, not JNI's modified UTF-8). Handles are
 * jlongs. The header org_mxnetcpp_Native.h comes from `javac -h` (Bazel genrule). */
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxc/mxc.h"
#include "org_mxnetcpp_Native.h"

#define H(type, v) ((type*)(intptr_t)(v))
#define J(p) ((jlong)(intptr_t)(p))
#define SMALL 16

static JavaVM* g_vm;
static jclass g_exception;      /* org.mxnetcpp.MXNetException */
static jmethodID g_from_native; /* static MXNetException fromNative(int, String) */
static jclass g_string;
static jclass g_object;
static jclass g_long_array;  /* long[] */
static jclass g_long_array2; /* long[][] */
static jclass g_int_array;   /* int[] */

/* ---- Strings: UTF-8 <-> UTF-16. ---- */

/* A Java String from UTF-8 (invalid bytes become U+FFFD). NULL for NULL. */
static jstring to_jstring(JNIEnv* env, const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  jchar small[256] = {0};
  jchar* out = n <= 256 ? small : (jchar*)calloc(n, sizeof(jchar));
  if (!out) return NULL;
  size_t k = 0;
  const unsigned char* p = (const unsigned char*)s;
  const unsigned char* end = p + n;
  while (p < end) {
    uint32_t c = *p, need = 0;
    if (c < 0x80) {
      need = 0;
    } else if ((c & 0xE0) == 0xC0) {
      need = 1, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      need = 2, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      need = 3, c &= 0x07;
    } else {
      out[k++] = 0xFFFD, p++;
      continue;
    }
    if ((size_t)(end - p) <= need) {
      out[k++] = 0xFFFD;
      break;
    }
    int ok = 1;
    for (uint32_t i = 1; i <= need; i++) {
      if ((p[i] & 0xC0) != 0x80) ok = 0;
    }
    if (!ok) {
      out[k++] = 0xFFFD, p++;
      continue;
    }
    for (uint32_t i = 1; i <= need; i++) c = (c << 6) | (p[i] & 0x3F);
    p += need + 1;
    if (c >= 0x10000) {
      c -= 0x10000;
      out[k++] = (jchar)(0xD800 + (c >> 10));
      out[k++] = (jchar)(0xDC00 + (c & 0x3FF));
    } else {
      out[k++] = (jchar)c;
    }
  }
  jstring r = (*env)->NewString(env, out, (jsize)k);
  if (out != small) free(out);
  return r;
}

/* Encodes `len` UTF-16 units as UTF-8 into dst (capacity >= 3 * len + 1). An unpaired
 * surrogate is encoded as its 3 bytes (invalid UTF-8, which the C ABI rejects by name). */
static size_t utf16_to_utf8(const jchar* u, jsize len, char* dst) {
  size_t k = 0;
  for (jsize i = 0; i < len; i++) {
    uint32_t c = u[i];
    if (c >= 0xD800 && c < 0xDC00 && i + 1 < len && u[i + 1] >= 0xDC00 && u[i + 1] < 0xE000) {
      c = 0x10000 + ((c - 0xD800) << 10) + (u[i + 1] - 0xDC00);
      i++;
    }
    if (c < 0x80) {
      dst[k++] = (char)c;
    } else if (c < 0x800) {
      dst[k++] = (char)(0xC0 | (c >> 6));
      dst[k++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      dst[k++] = (char)(0xE0 | (c >> 12));
      dst[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
      dst[k++] = (char)(0x80 | (c & 0x3F));
    } else {
      dst[k++] = (char)(0xF0 | (c >> 18));
      dst[k++] = (char)(0x80 | ((c >> 12) & 0x3F));
      dst[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
      dst[k++] = (char)(0x80 | (c & 0x3F));
    }
  }
  dst[k] = 0;
  return k;
}

static void throw_code(JNIEnv* env, int code, const char* message) {
  if ((*env)->ExceptionCheck(env)) return;
  jstring m = to_jstring(env, message);
  if (!m) return;
  jobject e = (*env)->CallStaticObjectMethod(env, g_exception, g_from_native, (jint)code, m);
  if (e && !(*env)->ExceptionCheck(env)) (*env)->Throw(env, (jthrowable)e);
}

/* Throws the status as MXNetException and frees it; returns 1 when it was an error. */
static int failed(JNIEnv* env, mxc_status* s) {
  if (!s) return 0;
  throw_code(env, (int)mxc_status_code(s), mxc_status_message(s));
  mxc_status_free(s);
  return 1;
}

static void throw_oom(JNIEnv* env) {
  throw_code(env, MXC_RESOURCE_EXHAUSTED, "mxc_jni: out of memory");
}

/* A list of C strings from a Java String[] (NULL array: count 0, v NULL). */
typedef struct cstrs {
  const char** v;
  size_t n;
  char* buf;
  const char* sv[SMALL];
  char sbuf[1024];
} cstrs;

static void cstrs_free(cstrs* c) {
  if (c->v && c->v != c->sv) free((void*)c->v);
  if (c->buf && c->buf != c->sbuf) free(c->buf);
}

/* Returns 0, or -1 with an exception pending. One pass, three JNI calls per string (element,
 * length, region): this is on every operator call with attributes. */
static int cstrs_get(JNIEnv* env, jobjectArray arr, const char* what, cstrs* c) {
  c->v = NULL, c->n = 0, c->buf = NULL;
  if (!arr) return 0;
  jsize n = (*env)->GetArrayLength(env, arr);
  size_t offs_small[SMALL];
  size_t* offs = n <= SMALL ? offs_small : (size_t*)malloc((size_t)n * sizeof(size_t));
  c->v = n <= SMALL ? c->sv : (const char**)malloc((size_t)n * sizeof(char*));
  c->buf = c->sbuf;
  size_t cap = sizeof c->sbuf, at = 0;
  jchar small[256];
  if (!offs || !c->v) goto oom;
  for (jsize i = 0; i < n; i++) {
    jstring s = (jstring)(*env)->GetObjectArrayElement(env, arr, i);
    if (!s) {
      char msg[128];
      snprintf(msg, sizeof msg, "mxc_jni: %s[%d] is null", what, (int)i);
      throw_code(env, MXC_INVALID_ARGUMENT, msg);
      goto fail;
    }
    jsize len = (*env)->GetStringLength(env, s);
    size_t need = at + 3 * (size_t)len + 1;
    if (need > cap) {
      size_t ncap = 2 * cap > need ? 2 * cap : need;
      char* nb = (char*)malloc(ncap);
      if (!nb) goto oom;
      memcpy(nb, c->buf, at);
      if (c->buf != c->sbuf) free(c->buf);
      c->buf = nb, cap = ncap;
    }
    jchar* u = len <= 256 ? small : (jchar*)malloc((size_t)len * sizeof(jchar));
    if (!u) goto oom;
    (*env)->GetStringRegion(env, s, 0, len, u);
    offs[i] = at;
    at += utf16_to_utf8(u, len, c->buf + at) + 1;
    if (u != small) free(u);
    if (n > 8) (*env)->DeleteLocalRef(env, s); /* keep within the 16 guaranteed local refs */
  }
  for (jsize i = 0; i < n; i++) c->v[i] = c->buf + offs[i];
  c->n = (size_t)n;
  if (offs != offs_small) free(offs);
  return 0;
oom:
  throw_oom(env);
fail:
  if (offs && offs != offs_small) free(offs);
  cstrs_free(c);
  c->v = NULL, c->buf = NULL;
  return -1;
}

/* Attributes from Java's encoding: n key/value pairs as "k\0v\0k\0v\0..." UTF-8 bytes (null:
 * none). keys/values point into buf. Returns 0, or -1 with an exception pending. */
typedef struct attrs {
  const char** keys;
  const char** values;
  size_t n;
  char* buf;
  const char* sk[SMALL];
  const char* sv[SMALL];
  char sbuf[512];
} attrs;

static void attrs_free(attrs* a) {
  if (a->keys && a->keys != a->sk) free((void*)a->keys);
  if (a->values && a->values != a->sv) free((void*)a->values);
  if (a->buf && a->buf != a->sbuf) free(a->buf);
}

static int attrs_get(JNIEnv* env, jbyteArray bytes, jint n, attrs* a) {
  a->keys = a->values = NULL, a->n = 0, a->buf = NULL;
  if (!bytes || n <= 0) return 0;
  jsize len = (*env)->GetArrayLength(env, bytes);
  a->buf = (size_t)len + 1 <= sizeof a->sbuf ? a->sbuf : (char*)malloc((size_t)len + 1);
  a->keys = n <= SMALL ? a->sk : (const char**)malloc((size_t)n * sizeof(char*));
  a->values = n <= SMALL ? a->sv : (const char**)malloc((size_t)n * sizeof(char*));
  if (!a->buf || !a->keys || !a->values) {
    attrs_free(a);
    a->keys = a->values = NULL, a->buf = NULL;
    throw_oom(env);
    return -1;
  }
  (*env)->GetByteArrayRegion(env, bytes, 0, len, (jbyte*)a->buf);
  a->buf[len] = 0;
  const char* p = a->buf;
  const char* end = a->buf + len;
  for (jint i = 0; i < n; i++) {
    if (p >= end) break;
    a->keys[i] = p;
    p += strlen(p) + 1;
    if (p >= end) break;
    a->values[i] = p;
    p += strlen(p) + 1;
    a->n = (size_t)i + 1;
  }
  if (a->n != (size_t)n) {
    attrs_free(a);
    a->keys = a->values = NULL, a->buf = NULL;
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: malformed attribute encoding");
    return -1;
  }
  return 0;
}

/* One C string from a Java String (NULL for null). Returns 0, or -1 with an exception pending. */
typedef struct cstr {
  char* p;
  char sbuf[256];
} cstr;

static int cstr_get(JNIEnv* env, jstring s, cstr* c) {
  c->p = NULL;
  if (!s) return 0;
  jsize len = (*env)->GetStringLength(env, s);
  size_t cap = 3 * (size_t)len + 1;
  c->p = cap <= sizeof c->sbuf ? c->sbuf : (char*)malloc(cap);
  if (!c->p) {
    throw_oom(env);
    return -1;
  }
  const jchar* u = (*env)->GetStringCritical(env, s, NULL);
  if (!u) {
    if (c->p != c->sbuf) free(c->p);
    c->p = NULL;
    return -1;
  }
  utf16_to_utf8(u, len, c->p);
  (*env)->ReleaseStringCritical(env, s, u);
  return 0;
}

static void cstr_free(cstr* c) {
  if (c->p && c->p != c->sbuf) free(c->p);
}

/* A C array of handles from a Java long[] (NULL array: n 0, v NULL). */
typedef struct handles {
  void** v;
  size_t n;
  void* sv[SMALL];
} handles;

static int handles_get(JNIEnv* env, jlongArray arr, handles* h) {
  h->v = NULL, h->n = 0;
  if (!arr) return 0;
  jsize n = (*env)->GetArrayLength(env, arr);
  jlong tmp[SMALL] = {0};
  jlong* t = n <= SMALL ? tmp : (jlong*)malloc((size_t)n * sizeof(jlong));
  h->v = n <= SMALL ? h->sv : (void**)malloc((size_t)n * sizeof(void*));
  if (!t || !h->v) {
    if (t && t != tmp) free(t);
    if (h->v && h->v != h->sv) free(h->v);
    h->v = NULL;
    throw_oom(env);
    return -1;
  }
  (*env)->GetLongArrayRegion(env, arr, 0, n, t);
  for (jsize i = 0; i < n; i++) h->v[i] = (void*)(intptr_t)t[i];
  if (t != tmp) free(t);
  h->n = (size_t)n;
  return 0;
}

static void handles_free(handles* h) {
  if (h->v && h->v != h->sv) free(h->v);
}

/* A C int64 shape from a Java long[]. */
typedef struct dims {
  int64_t* v;
  size_t n;
  int64_t sv[SMALL];
} dims;

static int dims_get(JNIEnv* env, jlongArray arr, dims* d) {
  d->v = d->sv, d->n = 0;
  if (!arr) return 0;
  jsize n = (*env)->GetArrayLength(env, arr);
  if (n > SMALL) d->v = (int64_t*)malloc((size_t)n * sizeof(int64_t));
  if (!d->v) {
    throw_oom(env);
    return -1;
  }
  (*env)->GetLongArrayRegion(env, arr, 0, n, (jlong*)d->v);
  d->n = (size_t)n;
  return 0;
}

static void dims_free(dims* d) {
  if (d->v != d->sv) free(d->v);
}

static jlongArray new_longs(JNIEnv* env, const jlong* v, size_t n) {
  jlongArray a = (*env)->NewLongArray(env, (jsize)n);
  if (a && n) (*env)->SetLongArrayRegion(env, a, 0, (jsize)n, v);
  return a;
}

static jlongArray new_handle_array(JNIEnv* env, void* const* v, size_t n) {
  jlong tmp[SMALL] = {0};
  jlong* t = n <= SMALL ? tmp : (jlong*)malloc(n * sizeof(jlong));
  if (!t) {
    throw_oom(env);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) t[i] = J(v[i]);
  jlongArray a = new_longs(env, t, n);
  if (t != tmp) free(t);
  return a;
}

static jobjectArray new_strings(JNIEnv* env, char* const* v, size_t n) {
  jobjectArray a = (*env)->NewObjectArray(env, (jsize)n, g_string, NULL);
  for (size_t i = 0; a && i < n; i++) {
    jstring s = to_jstring(env, v[i] ? v[i] : "");
    if (!s) return NULL;
    (*env)->SetObjectArrayElement(env, a, (jsize)i, s);
    (*env)->DeleteLocalRef(env, s);
  }
  return a;
}

static mxc_device dev(jint type, jint id) {
  mxc_device d;
  d.type = type, d.id = id;
  return d;
}

static jintArray dev_array(JNIEnv* env, mxc_device d) {
  jint v[2] = {d.type, d.id};
  jintArray a = (*env)->NewIntArray(env, 2);
  if (a) (*env)->SetIntArrayRegion(env, a, 0, 2, v);
  return a;
}

/* ---- Loading. ---- */

static jclass global_class(JNIEnv* env, const char* name) {
  jclass c = (*env)->FindClass(env, name);
  if (!c) return NULL;
  jclass g = (jclass)(*env)->NewGlobalRef(env, c);
  (*env)->DeleteLocalRef(env, c);
  return g;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)reserved;
  JNIEnv* env;
  g_vm = vm;
  if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  g_exception = global_class(env, "org/mxnetcpp/MXNetException");
  g_string = global_class(env, "java/lang/String");
  g_object = global_class(env, "java/lang/Object");
  g_long_array = global_class(env, "[J");
  g_long_array2 = global_class(env, "[[J");
  g_int_array = global_class(env, "[I");
  if (!g_exception || !g_string || !g_object || !g_long_array || !g_long_array2 || !g_int_array) {
    return JNI_ERR;
  }
  g_from_native = (*env)->GetStaticMethodID(env, g_exception, "fromNative",
                                            "(ILjava/lang/String;)Lorg/mxnetcpp/MXNetException;");
  if (!g_from_native) return JNI_ERR;
  return JNI_VERSION_1_8;
}

/* ---- base ---- */

JNIEXPORT jint JNICALL Java_org_mxnetcpp_Native_abiVersion(JNIEnv* env, jclass cls) {
  (void)env, (void)cls;
  return (jint)mxc_abi_version();
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_abiCheck(JNIEnv* env, jclass cls, jint major,
                                                         jint minor) {
  (void)cls;
  failed(env, mxc_abi_check((uint32_t)major, (uint32_t)minor));
}

JNIEXPORT jstring JNICALL Java_org_mxnetcpp_Native_codeName(JNIEnv* env, jclass cls, jint code) {
  (void)cls;
  return to_jstring(env, mxc_code_name(code));
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_handleStats(JNIEnv* env, jclass cls) {
  (void)cls;
  mxc_handle_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  if (failed(env, mxc_handle_stats_get(&st))) return NULL;
  jlong v[2] = {(jlong)st.live, (jlong)st.bad_frees};
  return new_longs(env, v, 2);
}

/* ---- ctx ---- */

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ctxCreate(JNIEnv* env, jclass cls, jint type,
                                                           jint id, jboolean has_seed, jlong seed) {
  (void)cls;
  mxc_ctx_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.device = dev(type, id);
  o.has_seed = has_seed ? 1 : 0;
  o.seed = (uint64_t)seed;
  mxc_ctx* out = NULL;
  if (failed(env, mxc_ctx_create(&o, &out))) return 0;
  return J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ctxFree(JNIEnv* env, jclass cls, jlong ctx) {
  (void)env, (void)cls;
  mxc_ctx_free(H(mxc_ctx, ctx));
}

JNIEXPORT jintArray JNICALL Java_org_mxnetcpp_Native_ctxDevice(JNIEnv* env, jclass cls, jlong ctx) {
  (void)cls;
  mxc_device d;
  if (failed(env, mxc_ctx_device(H(mxc_ctx, ctx), &d))) return NULL;
  return dev_array(env, d);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ctxSetDevice(JNIEnv* env, jclass cls, jlong ctx,
                                                             jint type, jint id) {
  (void)cls;
  failed(env, mxc_ctx_set_device(H(mxc_ctx, ctx), dev(type, id), NULL));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ctxSeed(JNIEnv* env, jclass cls, jlong ctx,
                                                        jlong seed) {
  (void)cls;
  failed(env, mxc_ctx_seed(H(mxc_ctx, ctx), (uint64_t)seed));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_randomSeed(JNIEnv* env, jclass cls, jlong seed) {
  (void)cls;
  failed(env, mxc_random_seed((uint64_t)seed));
}

/* ---- ndarray ---- */

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndCreate(JNIEnv* env, jclass cls, jlongArray shape,
                                                          jint dtype, jint type, jint id) {
  (void)cls;
  dims d;
  if (dims_get(env, shape, &d)) return 0;
  mxc_ndarray* out = NULL;
  mxc_status* s = mxc_ndarray_create(d.v, d.n, dtype, dev(type, id), &out);
  dims_free(&d);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndFromArray(JNIEnv* env, jclass cls, jobject array,
                                                             jlong off, jlong nbytes,
                                                             jlongArray shape, jint dtype,
                                                             jint type, jint id) {
  (void)cls;
  dims d;
  if (dims_get(env, shape, &d)) return 0;
  char* p = (char*)(*env)->GetPrimitiveArrayCritical(env, (jarray)array, NULL);
  if (!p) {
    dims_free(&d);
    return 0;
  }
  mxc_ndarray* out = NULL;
  mxc_status* s =
      mxc_ndarray_from_host(p + off, (size_t)nbytes, d.v, d.n, dtype, dev(type, id), &out);
  (*env)->ReleasePrimitiveArrayCritical(env, (jarray)array, p, JNI_ABORT);
  dims_free(&d);
  return failed(env, s) ? 0 : J(out);
}

static char* direct_address(JNIEnv* env, jobject buffer) {
  char* p = (char*)(*env)->GetDirectBufferAddress(env, buffer);
  if (!p) throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: the buffer is not a direct buffer");
  return p;
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndFromDirect(JNIEnv* env, jclass cls,
                                                              jobject buffer, jlong off,
                                                              jlong nbytes, jlongArray shape,
                                                              jint dtype, jint type, jint id) {
  (void)cls;
  char* p = direct_address(env, buffer);
  if (!p) return 0;
  dims d;
  if (dims_get(env, shape, &d)) return 0;
  mxc_ndarray* out = NULL;
  mxc_status* s =
      mxc_ndarray_from_host(p + off, (size_t)nbytes, d.v, d.n, dtype, dev(type, id), &out);
  dims_free(&d);
  return failed(env, s) ? 0 : J(out);
}

/* External memory: the deleter drops the global reference that keeps the buffer reachable; it
 * may run on any thread (a library thread too), so it attaches to the JVM when needed. */
static void release_global(void* user_data) {
  JNIEnv* env = NULL;
  int attached = 0;
  jint rc = (*g_vm)->GetEnv(g_vm, (void**)&env, JNI_VERSION_1_8);
  if (rc == JNI_EDETACHED) {
    if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void**)&env, NULL) != JNI_OK) return;
    attached = 1;
  } else if (rc != JNI_OK) {
    return;
  }
  (*env)->DeleteGlobalRef(env, (jobject)user_data);
  if (attached) (*g_vm)->DetachCurrentThread(g_vm);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndWrapDirect(JNIEnv* env, jclass cls,
                                                              jobject buffer, jlong off,
                                                              jlong nbytes, jlongArray shape,
                                                              jint dtype) {
  (void)cls;
  char* p = direct_address(env, buffer);
  if (!p) return 0;
  dims d;
  if (dims_get(env, shape, &d)) return 0;
  jobject ref = (*env)->NewGlobalRef(env, buffer);
  if (!ref) {
    dims_free(&d);
    throw_oom(env);
    return 0;
  }
  mxc_ndarray* out = NULL;
  mxc_status* s = mxc_ndarray_from_external(p + off, (size_t)nbytes, d.v, d.n, dtype,
                                            dev(MXC_DEVICE_CPU, 0), release_global, ref, &out);
  dims_free(&d);
  if (s) (*env)->DeleteGlobalRef(env, ref); /* on error the deleter is never called */
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndFree(JNIEnv* env, jclass cls, jlong a) {
  (void)env, (void)cls;
  mxc_ndarray_free(H(mxc_ndarray, a));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndRetain(JNIEnv* env, jclass cls, jlong a) {
  (void)cls;
  failed(env, mxc_ndarray_retain(H(mxc_ndarray, a)));
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_ndShape(JNIEnv* env, jclass cls, jlong a) {
  (void)cls;
  int64_t v[32];
  size_t ndim = 0;
  mxc_status* s = mxc_ndarray_shape(H(mxc_ndarray, a), v, 32, &ndim);
  if (s && mxc_status_code(s) == MXC_OUT_OF_RANGE) { /* more than 32 dims */
    mxc_status_free(s);
    if (failed(env, mxc_ndarray_ndim(H(mxc_ndarray, a), &ndim))) return NULL;
    int64_t* big = (int64_t*)malloc(ndim * sizeof(int64_t));
    if (!big) {
      throw_oom(env);
      return NULL;
    }
    s = mxc_ndarray_shape(H(mxc_ndarray, a), big, ndim, &ndim);
    jlongArray r = failed(env, s) ? NULL : new_longs(env, (const jlong*)big, ndim);
    free(big);
    return r;
  }
  if (failed(env, s)) return NULL;
  return new_longs(env, (const jlong*)v, ndim);
}

JNIEXPORT jint JNICALL Java_org_mxnetcpp_Native_ndDtype(JNIEnv* env, jclass cls, jlong a) {
  (void)cls;
  int32_t d = 0;
  if (failed(env, mxc_ndarray_dtype(H(mxc_ndarray, a), &d))) return -1;
  return d;
}

JNIEXPORT jintArray JNICALL Java_org_mxnetcpp_Native_ndDevice(JNIEnv* env, jclass cls, jlong a) {
  (void)cls;
  mxc_device d;
  if (failed(env, mxc_ndarray_device(H(mxc_ndarray, a), &d))) return NULL;
  return dev_array(env, d);
}

/* Reads wait outside the critical region (no JNI pause while operators run), then copy. */
JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndCopyToArray(JNIEnv* env, jclass cls, jlong a,
                                                              jobject dst, jlong off,
                                                              jlong nbytes) {
  (void)cls;
  if (failed(env, mxc_ndarray_wait(H(mxc_ndarray, a)))) return;
  char* p = (char*)(*env)->GetPrimitiveArrayCritical(env, (jarray)dst, NULL);
  if (!p) return;
  mxc_status* s = mxc_ndarray_copy_to_host(H(mxc_ndarray, a), p + off, (size_t)nbytes);
  (*env)->ReleasePrimitiveArrayCritical(env, (jarray)dst, p, s ? JNI_ABORT : 0);
  failed(env, s);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndCopyToDirect(JNIEnv* env, jclass cls, jlong a,
                                                               jobject dst, jlong off,
                                                               jlong nbytes) {
  (void)cls;
  char* p = direct_address(env, dst);
  if (!p) return;
  failed(env, mxc_ndarray_copy_to_host(H(mxc_ndarray, a), p + off, (size_t)nbytes));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndCopyFromArray(JNIEnv* env, jclass cls, jlong a,
                                                                jobject src, jlong off,
                                                                jlong nbytes) {
  (void)cls;
  if (failed(env, mxc_ndarray_wait(H(mxc_ndarray, a)))) return;
  char* p = (char*)(*env)->GetPrimitiveArrayCritical(env, (jarray)src, NULL);
  if (!p) return;
  mxc_status* s = mxc_ndarray_copy_from_host(H(mxc_ndarray, a), p + off, (size_t)nbytes);
  (*env)->ReleasePrimitiveArrayCritical(env, (jarray)src, p, JNI_ABORT);
  failed(env, s);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndCopyFromDirect(JNIEnv* env, jclass cls, jlong a,
                                                                 jobject src, jlong off,
                                                                 jlong nbytes) {
  (void)cls;
  char* p = direct_address(env, src);
  if (!p) return;
  failed(env, mxc_ndarray_copy_from_host(H(mxc_ndarray, a), p + off, (size_t)nbytes));
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndCopy(JNIEnv* env, jclass cls, jlong a, jint type,
                                                        jint id) {
  (void)cls;
  mxc_ndarray* out = NULL;
  if (failed(env, mxc_ndarray_copy(H(mxc_ndarray, a), dev(type, id), &out))) return 0;
  return J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndReshape(JNIEnv* env, jclass cls, jlong ctx,
                                                           jlong a, jlongArray shape) {
  (void)cls;
  dims d;
  if (dims_get(env, shape, &d)) return 0;
  mxc_ndarray* out = NULL;
  mxc_status* s = mxc_ndarray_reshape(H(mxc_ctx, ctx), H(mxc_ndarray, a), d.v, d.n, &out);
  dims_free(&d);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndSlice(JNIEnv* env, jclass cls, jlong ctx,
                                                         jlong a, jlong begin, jlong end) {
  (void)cls;
  mxc_ndarray* out = NULL;
  if (failed(env, mxc_ndarray_slice(H(mxc_ctx, ctx), H(mxc_ndarray, a), begin, end, &out))) {
    return 0;
  }
  return J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndWait(JNIEnv* env, jclass cls, jlong a) {
  (void)cls;
  failed(env, mxc_ndarray_wait(H(mxc_ndarray, a)));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_waitAll(JNIEnv* env, jclass cls) {
  (void)cls;
  failed(env, mxc_ndarray_waitall());
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_ndLoad(JNIEnv* env, jclass cls,
                                                               jstring path, jbyteArray bytes,
                                                               jint type, jint id,
                                                               jboolean reject_trailing,
                                                               jboolean keep_sparse,
                                                               jlong max_densified_bytes) {
  (void)cls;
  mxc_ndarray_load_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.device = dev(type, id);
  o.reject_trailing_bytes = reject_trailing ? 1 : 0;
  o.keep_sparse = keep_sparse ? 1 : 0;
  o.max_densified_bytes = (uint64_t)max_densified_bytes;
  mxc_ndarray** arrays = NULL;
  char** names = NULL;
  size_t count = 0;
  mxc_status* s;
  if (path) {
    cstr p;
    if (cstr_get(env, path, &p)) return NULL;
    s = mxc_ndarray_load(p.p, &o, &arrays, &names, &count);
    cstr_free(&p);
  } else {
    jsize n = (*env)->GetArrayLength(env, bytes);
    jbyte* b = (*env)->GetByteArrayElements(env, bytes, NULL);
    if (!b) return NULL;
    s = mxc_ndarray_load_from_buffer(b, (size_t)n, &o, &arrays, &names, &count);
    (*env)->ReleaseByteArrayElements(env, bytes, b, JNI_ABORT);
  }
  if (failed(env, s)) return NULL;
  /* The Java side keeps every handle: retain each (+1), then free the list (-1 each). */
  for (size_t i = 0; i < count; i++) {
    if (arrays[i]) {
      mxc_status* r = mxc_ndarray_retain(arrays[i]);
      if (r) {
        for (size_t j = 0; j < i; j++) mxc_ndarray_free(arrays[j]);
        mxc_ndarray_array_free(arrays, count);
        mxc_string_array_free(names, names ? count : 0);
        failed(env, r);
        return NULL;
      }
    }
  }
  jlongArray hs = new_handle_array(env, (void* const*)arrays, count);
  jobjectArray ns = names ? new_strings(env, names, count) : NULL;
  jobjectArray result = (*env)->NewObjectArray(env, 2, g_object, NULL);
  if (!hs || (names && !ns) || !result) {
    for (size_t i = 0; i < count; i++) mxc_ndarray_free(arrays[i]);
    result = NULL;
  } else {
    (*env)->SetObjectArrayElement(env, result, 0, hs);
    (*env)->SetObjectArrayElement(env, result, 1, ns);
  }
  mxc_ndarray_array_free(arrays, count);
  if (names) mxc_string_array_free(names, count);
  return result;
}

static void save_options(mxc_ndarray_save_options* o, jint format, jint version, int no_fsync) {
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->format = format;
  o->version = version;
  o->no_fsync = no_fsync;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndSave(JNIEnv* env, jclass cls, jstring path,
                                                       jlongArray arrays, jobjectArray names,
                                                       jint format, jint version,
                                                       jboolean no_fsync) {
  (void)cls;
  mxc_ndarray_save_options o;
  save_options(&o, format, version, no_fsync ? 1 : 0);
  cstr p;
  handles h;
  cstrs n;
  if (cstr_get(env, path, &p)) return;
  if (handles_get(env, arrays, &h)) {
    cstr_free(&p);
    return;
  }
  if (cstrs_get(env, names, "names", &n)) {
    handles_free(&h);
    cstr_free(&p);
    return;
  }
  mxc_status* s = mxc_ndarray_save(p.p, (mxc_ndarray* const*)h.v, names ? n.v : NULL, h.n, &o);
  cstrs_free(&n);
  handles_free(&h);
  cstr_free(&p);
  failed(env, s);
}

JNIEXPORT jbyteArray JNICALL Java_org_mxnetcpp_Native_ndSaveToBytes(JNIEnv* env, jclass cls,
                                                                    jlongArray arrays,
                                                                    jobjectArray names, jint format,
                                                                    jint version) {
  (void)cls;
  mxc_ndarray_save_options o;
  save_options(&o, format, version, 0);
  handles h;
  cstrs n;
  if (handles_get(env, arrays, &h)) return NULL;
  if (cstrs_get(env, names, "names", &n)) {
    handles_free(&h);
    return NULL;
  }
  void* data = NULL;
  size_t size = 0;
  mxc_status* s = mxc_ndarray_save_to_buffer((mxc_ndarray* const*)h.v, names ? n.v : NULL, h.n, &o,
                                             &data, &size);
  cstrs_free(&n);
  handles_free(&h);
  if (failed(env, s)) return NULL;
  jbyteArray r = (*env)->NewByteArray(env, (jsize)size);
  if (r) (*env)->SetByteArrayRegion(env, r, 0, (jsize)size, (const jbyte*)data);
  mxc_bytes_free(data);
  return r;
}

/* ---- ops ---- */

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_opCount(JNIEnv* env, jclass cls) {
  (void)cls;
  size_t n = 0;
  if (failed(env, mxc_op_count(&n))) return 0;
  return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_opAt(JNIEnv* env, jclass cls, jlong index) {
  (void)cls;
  mxc_op* op = NULL;
  if (index < 0) {
    throw_code(env, MXC_OUT_OF_RANGE, "mxc_jni: negative operator index");
    return 0;
  }
  if (failed(env, mxc_op_at((size_t)index, &op))) return 0;
  return J(op);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_opFind(JNIEnv* env, jclass cls, jstring name) {
  (void)cls;
  cstr n;
  if (cstr_get(env, name, &n)) return 0;
  mxc_op* op = NULL;
  mxc_status* s = mxc_op_find(n.p, &op);
  cstr_free(&n);
  return failed(env, s) ? 0 : J(op);
}

static jobjectArray new_const_strings(JNIEnv* env, const char* const* v, size_t n) {
  return new_strings(env, (char* const*)v, n);
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_opInfo(JNIEnv* env, jclass cls, jlong op) {
  (void)cls;
  mxc_op_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  if (failed(env, mxc_op_get_info(H(mxc_op, op), &info))) return NULL;
  jobjectArray r = (*env)->NewObjectArray(env, 6, g_object, NULL);
  if (!r) return NULL;
  jint ints[5] = {info.num_inputs, info.num_outputs, info.differentiable, info.is_creation,
                  (jint)info.num_attrs};
  jintArray ia = (*env)->NewIntArray(env, 5);
  if (!ia) return NULL;
  (*env)->SetIntArrayRegion(env, ia, 0, 5, ints);
  (*env)->SetObjectArrayElement(env, r, 0, to_jstring(env, info.name));
  (*env)->SetObjectArrayElement(env, r, 1, to_jstring(env, info.doc ? info.doc : ""));
  (*env)->SetObjectArrayElement(env, r, 2, ia);
  (*env)->SetObjectArrayElement(env, r, 3,
                                new_const_strings(env, info.input_names, info.num_input_names));
  (*env)->SetObjectArrayElement(env, r, 4, new_const_strings(env, info.aliases, info.num_aliases));
  (*env)->SetObjectArrayElement(env, r, 5, to_jstring(env, info.variadic_attr));
  return (*env)->ExceptionCheck(env) ? NULL : r;
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_opAttr(JNIEnv* env, jclass cls, jlong op,
                                                               jlong index) {
  (void)cls;
  mxc_op_attr a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  if (index < 0) {
    throw_code(env, MXC_OUT_OF_RANGE, "mxc_jni: negative attribute index");
    return NULL;
  }
  if (failed(env, mxc_op_attr_at(H(mxc_op, op), (size_t)index, &a))) return NULL;
  jobjectArray r = (*env)->NewObjectArray(env, 6, g_object, NULL);
  jintArray ia = (*env)->NewIntArray(env, 3);
  if (!r || !ia) return NULL;
  jint ints[3] = {a.kind, a.optional, a.required};
  (*env)->SetIntArrayRegion(env, ia, 0, 3, ints);
  (*env)->SetObjectArrayElement(env, r, 0, to_jstring(env, a.name));
  (*env)->SetObjectArrayElement(env, r, 1, to_jstring(env, a.type ? a.type : ""));
  (*env)->SetObjectArrayElement(env, r, 2, ia);
  (*env)->SetObjectArrayElement(env, r, 3, to_jstring(env, a.default_value));
  (*env)->SetObjectArrayElement(env, r, 4, to_jstring(env, a.doc ? a.doc : ""));
  (*env)->SetObjectArrayElement(env, r, 5, new_const_strings(env, a.choices, a.num_choices));
  return (*env)->ExceptionCheck(env) ? NULL : r;
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_opNumIo(JNIEnv* env, jclass cls, jlong op,
                                                              jobjectArray keys,
                                                              jobjectArray values) {
  (void)cls;
  cstrs k, v;
  if (cstrs_get(env, keys, "keys", &k)) return NULL;
  if (cstrs_get(env, values, "values", &v)) {
    cstrs_free(&k);
    return NULL;
  }
  size_t ni = 0, no = 0;
  mxc_status* s = mxc_op_num_io(H(mxc_op, op), k.v, v.v, k.n, &ni, &no);
  cstrs_free(&v);
  cstrs_free(&k);
  if (failed(env, s)) return NULL;
  jlong r[2] = {(jlong)ni, (jlong)no};
  return new_longs(env, r, 2);
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_opInputNames(JNIEnv* env, jclass cls,
                                                                     jlong op, jobjectArray keys,
                                                                     jobjectArray values) {
  (void)cls;
  cstrs k, v;
  if (cstrs_get(env, keys, "keys", &k)) return NULL;
  if (cstrs_get(env, values, "values", &v)) {
    cstrs_free(&k);
    return NULL;
  }
  char** names = NULL;
  size_t count = 0;
  mxc_status* s = mxc_op_input_names(H(mxc_op, op), k.v, v.v, k.n, &names, &count);
  cstrs_free(&v);
  cstrs_free(&k);
  if (failed(env, s)) return NULL;
  jobjectArray r = new_strings(env, names, count);
  mxc_string_array_free(names, count);
  return r;
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_invoke(JNIEnv* env, jclass cls, jlong ctx,
                                                             jlong op, jlongArray inputs,
                                                             jbyteArray attr_bytes,
                                                             jint num_attrs) {
  (void)cls;
  handles in;
  attrs at;
  if (handles_get(env, inputs, &in)) return NULL;
  if (attrs_get(env, attr_bytes, num_attrs, &at)) {
    handles_free(&in);
    return NULL;
  }
  mxc_ndarray* small[SMALL];
  mxc_ndarray** out = small;
  size_t max_out = SMALL, n_out = 0;
  mxc_status* s = mxc_invoke(H(mxc_ctx, ctx), H(mxc_op, op), (mxc_ndarray* const*)in.v, in.n,
                             at.keys, at.values, at.n, out, max_out, &n_out);
  if (s && mxc_status_code(s) == MXC_OUT_OF_RANGE) {
    /* Maybe more outputs than the small buffer: ask for the count and retry once. */
    size_t ni = 0, no = 0;
    mxc_status* q = mxc_op_num_io(H(mxc_op, op), at.keys, at.values, at.n, &ni, &no);
    if (!q && no > SMALL) {
      out = (mxc_ndarray**)malloc(no * sizeof(mxc_ndarray*));
      if (out) {
        mxc_status_free(s);
        max_out = no;
        s = mxc_invoke(H(mxc_ctx, ctx), H(mxc_op, op), (mxc_ndarray* const*)in.v, in.n, at.keys,
                       at.values, at.n, out, max_out, &n_out);
      } else {
        out = small;
      }
    }
    mxc_status_free(q);
  }
  attrs_free(&at), handles_free(&in);
  jlongArray r = NULL;
  if (!failed(env, s)) {
    r = new_handle_array(env, (void* const*)out, n_out);
    if (!r) {
      for (size_t i = 0; i < n_out; i++) mxc_ndarray_free(out[i]);
    }
  }
  if (out != small) free(out);
  return r;
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_invoke1(JNIEnv* env, jclass cls, jlong ctx,
                                                         jlong op, jint nin, jlong in0, jlong in1,
                                                         jbyteArray attr_bytes, jint num_attrs) {
  (void)cls;
  attrs at;
  if (nin < 0 || nin > 2) {
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: invoke1: bad input count");
    return 0;
  }
  if (attrs_get(env, attr_bytes, num_attrs, &at)) return 0;
  mxc_ndarray* in[2] = {H(mxc_ndarray, in0), H(mxc_ndarray, in1)};
  mxc_ndarray* out = NULL;
  size_t n_out = 0;
  mxc_status* s = mxc_invoke(H(mxc_ctx, ctx), H(mxc_op, op), in, (size_t)nin, at.keys, at.values,
                             at.n, &out, 1, &n_out);
  attrs_free(&at);
  return failed(env, s) ? 0 : J(out);
}

/* ---- autograd ---- */

JNIEXPORT jboolean JNICALL Java_org_mxnetcpp_Native_agSetRecording(JNIEnv* env, jclass cls,
                                                                   jlong ctx, jboolean on) {
  (void)cls;
  int32_t prev = 0;
  if (failed(env, mxc_autograd_set_recording(H(mxc_ctx, ctx), on ? 1 : 0, &prev))) return 0;
  return prev ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_org_mxnetcpp_Native_agSetTraining(JNIEnv* env, jclass cls,
                                                                  jlong ctx, jboolean on) {
  (void)cls;
  int32_t prev = 0;
  if (failed(env, mxc_autograd_set_training(H(mxc_ctx, ctx), on ? 1 : 0, &prev))) return 0;
  return prev ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_org_mxnetcpp_Native_agIsRecording(JNIEnv* env, jclass cls,
                                                                  jlong ctx) {
  (void)cls;
  int32_t v = 0;
  if (failed(env, mxc_autograd_is_recording(H(mxc_ctx, ctx), &v))) return 0;
  return v ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_org_mxnetcpp_Native_agIsTraining(JNIEnv* env, jclass cls,
                                                                 jlong ctx) {
  (void)cls;
  int32_t v = 0;
  if (failed(env, mxc_autograd_is_training(H(mxc_ctx, ctx), &v))) return 0;
  return v ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_ndAttachGrad(JNIEnv* env, jclass cls, jlong a,
                                                             jint req) {
  (void)cls;
  failed(env, mxc_ndarray_attach_grad(H(mxc_ndarray, a), req));
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_ndGrad(JNIEnv* env, jclass cls, jlong a) {
  (void)cls;
  mxc_ndarray* out = NULL;
  if (failed(env, mxc_ndarray_grad(H(mxc_ndarray, a), &out))) return 0;
  return J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_agMarkVariables(JNIEnv* env, jclass cls,
                                                                jlongArray vars, jlongArray grads,
                                                                jintArray reqs) {
  (void)cls;
  handles v, g;
  if (handles_get(env, vars, &v)) return;
  if (handles_get(env, grads, &g)) {
    handles_free(&v);
    return;
  }
  jsize nr = (*env)->GetArrayLength(env, reqs);
  if ((size_t)nr != v.n || g.n != v.n) {
    throw_code(env, MXC_INVALID_ARGUMENT,
               "mxc_jni: variables, gradients and grad_reqs differ in length");
    handles_free(&g), handles_free(&v);
    return;
  }
  jint* r = (*env)->GetIntArrayElements(env, reqs, NULL);
  if (!r) {
    handles_free(&g), handles_free(&v);
    return;
  }
  mxc_status* s = mxc_autograd_mark_variables((mxc_ndarray* const*)v.v, (mxc_ndarray* const*)g.v,
                                              (const int32_t*)r, v.n);
  (*env)->ReleaseIntArrayElements(env, reqs, r, JNI_ABORT);
  handles_free(&g), handles_free(&v);
  failed(env, s);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_agBackward(JNIEnv* env, jclass cls, jlong ctx,
                                                           jlongArray heads, jlongArray head_grads,
                                                           jboolean retain, jboolean train) {
  (void)cls;
  handles h, g;
  if (handles_get(env, heads, &h)) return;
  if (handles_get(env, head_grads, &g)) {
    handles_free(&h);
    return;
  }
  if (head_grads && g.n != h.n) {
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: heads and head gradients differ in length");
    handles_free(&g), handles_free(&h);
    return;
  }
  mxc_status* s = mxc_autograd_backward(H(mxc_ctx, ctx), (mxc_ndarray* const*)h.v, h.n,
                                        head_grads ? (mxc_ndarray* const*)g.v : NULL,
                                        retain ? 1 : 0, train ? 1 : 0);
  handles_free(&g), handles_free(&h);
  failed(env, s);
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_agGrad(JNIEnv* env, jclass cls, jlong ctx,
                                                             jlongArray heads,
                                                             jlongArray head_grads, jlongArray vars,
                                                             jboolean retain, jboolean create,
                                                             jboolean train) {
  (void)cls;
  handles h, g, v;
  if (handles_get(env, heads, &h)) return NULL;
  if (handles_get(env, head_grads, &g)) {
    handles_free(&h);
    return NULL;
  }
  if (handles_get(env, vars, &v)) {
    handles_free(&g), handles_free(&h);
    return NULL;
  }
  jlongArray r = NULL;
  if (head_grads && g.n != h.n) {
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: heads and head gradients differ in length");
  } else {
    mxc_ndarray* small[SMALL];
    mxc_ndarray** out = v.n <= SMALL ? small : (mxc_ndarray**)malloc(v.n * sizeof(mxc_ndarray*));
    if (!out) {
      throw_oom(env);
    } else {
      mxc_status* s =
          mxc_autograd_grad(H(mxc_ctx, ctx), (mxc_ndarray* const*)h.v, h.n,
                            head_grads ? (mxc_ndarray* const*)g.v : NULL, (mxc_ndarray* const*)v.v,
                            v.n, retain ? 1 : 0, create ? 1 : 0, train ? 1 : 0, out);
      if (!failed(env, s)) {
        r = new_handle_array(env, (void* const*)out, v.n);
        if (!r) {
          for (size_t i = 0; i < v.n; i++) mxc_ndarray_free(out[i]);
        }
      }
      if (out != small) free(out);
    }
  }
  handles_free(&v), handles_free(&g), handles_free(&h);
  return r;
}

/* ---- symbol ---- */

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_symFree(JNIEnv* env, jclass cls, jlong s) {
  (void)env, (void)cls;
  mxc_symbol_free(H(mxc_symbol, s));
}

/* Calls f(c-string, out) for the one string argument. */
static jlong sym_from_string(JNIEnv* env, jstring str,
                             mxc_status* (*f)(const char*, mxc_symbol**)) {
  cstr c;
  if (cstr_get(env, str, &c)) return 0;
  mxc_symbol* out = NULL;
  mxc_status* s = f(c.p, &out);
  cstr_free(&c);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symFromJson(JNIEnv* env, jclass cls,
                                                             jstring json) {
  (void)cls;
  return sym_from_string(env, json, mxc_symbol_from_json);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symLoad(JNIEnv* env, jclass cls, jstring path) {
  (void)cls;
  return sym_from_string(env, path, mxc_symbol_load);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symVariable(JNIEnv* env, jclass cls,
                                                             jstring name) {
  (void)cls;
  return sym_from_string(env, name, mxc_symbol_variable);
}

/* The Java String of a string a call returned (freed here), or NULL after a failed status. */
static jstring take_string(JNIEnv* env, mxc_status* s, char* str) {
  if (failed(env, s)) return NULL;
  jstring r = to_jstring(env, str);
  mxc_string_free(str);
  return r;
}

JNIEXPORT jstring JNICALL Java_org_mxnetcpp_Native_symToJson(JNIEnv* env, jclass cls, jlong sym) {
  (void)cls;
  char* json = NULL;
  mxc_status* s = mxc_symbol_to_json(H(mxc_symbol, sym), &json);
  return take_string(env, s, json);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_symSave(JNIEnv* env, jclass cls, jlong sym,
                                                        jstring path) {
  (void)cls;
  cstr p;
  if (cstr_get(env, path, &p)) return;
  mxc_status* s = mxc_symbol_save(H(mxc_symbol, sym), p.p);
  cstr_free(&p);
  failed(env, s);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symCreate(JNIEnv* env, jclass cls, jlong op,
                                                           jlongArray inputs, jobjectArray keys,
                                                           jobjectArray values, jstring name) {
  (void)cls;
  handles in;
  cstrs k, v;
  cstr n;
  if (handles_get(env, inputs, &in)) return 0;
  if (cstrs_get(env, keys, "keys", &k)) {
    handles_free(&in);
    return 0;
  }
  if (cstrs_get(env, values, "values", &v)) {
    cstrs_free(&k), handles_free(&in);
    return 0;
  }
  if (cstr_get(env, name, &n)) {
    cstrs_free(&v), cstrs_free(&k), handles_free(&in);
    return 0;
  }
  jlong r = 0;
  if (k.n != v.n) {
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: keys and values differ in length");
  } else {
    mxc_symbol* out = NULL;
    mxc_status* s =
        mxc_symbol_create(H(mxc_op, op), (mxc_symbol* const*)in.v, in.n, k.v, v.v, k.n, n.p, &out);
    if (!failed(env, s)) r = J(out);
  }
  cstr_free(&n), cstrs_free(&v), cstrs_free(&k), handles_free(&in);
  return r;
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symGroup(JNIEnv* env, jclass cls,
                                                          jlongArray syms) {
  (void)cls;
  handles h;
  if (handles_get(env, syms, &h)) return 0;
  mxc_symbol* out = NULL;
  mxc_status* s = mxc_symbol_group((mxc_symbol* const*)h.v, h.n, &out);
  handles_free(&h);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symOutput(JNIEnv* env, jclass cls, jlong sym,
                                                           jlong index) {
  (void)cls;
  mxc_symbol* out = NULL;
  if (index < 0) {
    throw_code(env, MXC_OUT_OF_RANGE, "mxc_jni: negative output index");
    return 0;
  }
  if (failed(env, mxc_symbol_output(H(mxc_symbol, sym), (size_t)index, &out))) return 0;
  return J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symInternals(JNIEnv* env, jclass cls, jlong sym) {
  (void)cls;
  mxc_symbol* out = NULL;
  if (failed(env, mxc_symbol_get_internals(H(mxc_symbol, sym), &out))) return 0;
  return J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symCompose(JNIEnv* env, jclass cls, jlong sym,
                                                            jobjectArray names, jlongArray subs) {
  (void)cls;
  cstrs n;
  handles h;
  if (cstrs_get(env, names, "names", &n)) return 0;
  if (handles_get(env, subs, &h)) {
    cstrs_free(&n);
    return 0;
  }
  jlong r = 0;
  if (n.n != h.n) {
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: names and substitutes differ in length");
  } else {
    mxc_symbol* out = NULL;
    mxc_status* s = mxc_symbol_compose(H(mxc_symbol, sym), n.v, (mxc_symbol* const*)h.v, h.n, &out);
    if (!failed(env, s)) r = J(out);
  }
  handles_free(&h), cstrs_free(&n);
  return r;
}

JNIEXPORT jstring JNICALL Java_org_mxnetcpp_Native_symName(JNIEnv* env, jclass cls, jlong sym) {
  (void)cls;
  char* name = NULL;
  mxc_status* s = mxc_symbol_name(H(mxc_symbol, sym), &name);
  return take_string(env, s, name);
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_symList(JNIEnv* env, jclass cls, jlong sym,
                                                                jint which) {
  (void)cls;
  char** names = NULL;
  size_t count = 0;
  mxc_symbol* s = H(mxc_symbol, sym);
  mxc_status* st;
  switch (which) {
    case 0:
      st = mxc_symbol_list_arguments(s, &names, &count);
      break;
    case 1:
      st = mxc_symbol_list_outputs(s, &names, &count);
      break;
    case 2:
      st = mxc_symbol_list_auxiliary_states(s, &names, &count);
      break;
    default:
      st = mxc_symbol_list_inputs(s, &names, &count);
      break;
  }
  if (failed(env, st)) return NULL;
  jobjectArray r = new_strings(env, names, count);
  mxc_string_array_free(names, count);
  return r;
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_symInferShape(JNIEnv* env, jclass cls,
                                                                      jlong sym, jobjectArray names,
                                                                      jobjectArray shapes,
                                                                      jboolean partial) {
  (void)cls;
  cstrs n;
  if (cstrs_get(env, names, "names", &n)) return NULL;
  jsize ns = shapes ? (*env)->GetArrayLength(env, shapes) : 0;
  if ((size_t)ns != n.n) {
    cstrs_free(&n);
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: names and shapes differ in length");
    return NULL;
  }
  size_t total = 0;
  size_t* ndims = (size_t*)calloc(n.n + 1, sizeof(size_t));
  for (size_t i = 0; ndims && i < n.n; i++) {
    jlongArray a = (jlongArray)(*env)->GetObjectArrayElement(env, shapes, (jsize)i);
    ndims[i] = a ? (size_t)(*env)->GetArrayLength(env, a) : 0;
    total += ndims[i];
    (*env)->DeleteLocalRef(env, a);
  }
  int64_t* flat = (int64_t*)malloc((total + 1) * sizeof(int64_t));
  if (!ndims || !flat) {
    free(ndims), free(flat), cstrs_free(&n);
    throw_oom(env);
    return NULL;
  }
  size_t at = 0;
  for (size_t i = 0; i < n.n; i++) {
    jlongArray a = (jlongArray)(*env)->GetObjectArrayElement(env, shapes, (jsize)i);
    if (a) (*env)->GetLongArrayRegion(env, a, 0, (jsize)ndims[i], (jlong*)flat + at);
    at += ndims[i];
    (*env)->DeleteLocalRef(env, a);
  }
  mxc_infer_result* res = NULL;
  mxc_status* s =
      mxc_symbol_infer_shape(H(mxc_symbol, sym), n.v, ndims, flat, n.n, partial ? 1 : 0, &res);
  free(ndims), free(flat), cstrs_free(&n);
  if (failed(env, s)) return NULL;
  jobjectArray r = (*env)->NewObjectArray(env, 3, g_long_array2, NULL);
  for (int which = 0; r && which < 3; which++) {
    size_t count = 0;
    if (failed(env, mxc_infer_result_count(res, which, &count))) {
      r = NULL;
      break;
    }
    jobjectArray list = (*env)->NewObjectArray(env, (jsize)count, g_long_array, NULL);
    for (size_t i = 0; list && i < count; i++) {
      const int64_t* d = NULL;
      int32_t nd = 0;
      if (failed(env, mxc_infer_result_shape(res, which, i, &d, &nd))) {
        list = NULL;
        break;
      }
      if (nd >= 0) {
        jlongArray shape = new_longs(env, (const jlong*)d, (size_t)nd);
        if (!shape) {
          list = NULL;
          break;
        }
        (*env)->SetObjectArrayElement(env, list, (jsize)i, shape);
        (*env)->DeleteLocalRef(env, shape);
      }
    }
    if (!list) {
      r = NULL;
      break;
    }
    (*env)->SetObjectArrayElement(env, r, which, list);
    (*env)->DeleteLocalRef(env, list);
  }
  mxc_infer_result_free(res);
  return r;
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_symInferType(JNIEnv* env, jclass cls,
                                                                     jlong sym, jobjectArray names,
                                                                     jintArray dtypes) {
  (void)cls;
  cstrs n;
  if (cstrs_get(env, names, "names", &n)) return NULL;
  jsize nd = dtypes ? (*env)->GetArrayLength(env, dtypes) : 0;
  if ((size_t)nd != n.n) {
    cstrs_free(&n);
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: names and dtypes differ in length");
    return NULL;
  }
  int32_t small[SMALL];
  int32_t* t = n.n <= SMALL ? small : (int32_t*)malloc(n.n * sizeof(int32_t));
  if (!t) {
    cstrs_free(&n);
    throw_oom(env);
    return NULL;
  }
  if (nd) (*env)->GetIntArrayRegion(env, dtypes, 0, nd, (jint*)t);
  mxc_infer_result* res = NULL;
  mxc_status* s = mxc_symbol_infer_type(H(mxc_symbol, sym), n.v, t, n.n, &res);
  if (t != small) free(t);
  cstrs_free(&n);
  if (failed(env, s)) return NULL;
  jobjectArray r = (*env)->NewObjectArray(env, 3, g_int_array, NULL);
  for (int which = 0; r && which < 3; which++) {
    size_t count = 0;
    if (failed(env, mxc_infer_result_count(res, which, &count))) {
      r = NULL;
      break;
    }
    jintArray list = (*env)->NewIntArray(env, (jsize)count);
    for (size_t i = 0; list && i < count; i++) {
      int32_t d = -1;
      if (failed(env, mxc_infer_result_dtype(res, which, i, &d))) {
        list = NULL;
        break;
      }
      jint jd = d;
      (*env)->SetIntArrayRegion(env, list, (jsize)i, 1, &jd);
    }
    if (!list) {
      r = NULL;
      break;
    }
    (*env)->SetObjectArrayElement(env, r, which, list);
    (*env)->DeleteLocalRef(env, list);
  }
  mxc_infer_result_free(res);
  return r;
}

/* ---- S8: the same call loop in C, for the overhead comparison (timed by the caller). ---- */

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_benchInvokeC(JNIEnv* env, jclass cls, jlong ctx,
                                                             jlong op, jlong input, jstring key,
                                                             jstring value, jint iterations) {
  (void)cls;
  cstr k, v;
  if (cstr_get(env, key, &k)) return;
  if (cstr_get(env, value, &v)) {
    cstr_free(&k);
    return;
  }
  const char* keys[1] = {k.p};
  const char* values[1] = {v.p};
  size_t num_attrs = k.p ? 1 : 0;
  mxc_ndarray* in = H(mxc_ndarray, input);
  for (jint i = 0; i < iterations; i++) {
    mxc_ndarray* out = NULL;
    size_t n = 0;
    if (failed(env, mxc_invoke(H(mxc_ctx, ctx), H(mxc_op, op), &in, 1, keys, values, num_attrs,
                               &out, 1, &n))) {
      break;
    }
    mxc_ndarray_free(out);
  }
  cstr_free(&v);
  cstr_free(&k);
}

/* ---- gluon: model zoo, blocks, parameters (mxc/gluon.h) ---- */

/* A Java String[] from a list the C ABI returned (freed here), or NULL after a failed status. */
static jobjectArray take_strings(JNIEnv* env, mxc_status* s, char** names, size_t count) {
  if (failed(env, s)) return NULL;
  jobjectArray r = new_strings(env, names, count);
  mxc_string_array_free(names, count);
  return r;
}

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_modelZooList(JNIEnv* env, jclass cls) {
  (void)cls;
  char** names = NULL;
  size_t count = 0;
  mxc_status* s = mxc_model_zoo_list(&names, &count);
  return take_strings(env, s, names, count);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_modelZooGet(JNIEnv* env, jclass cls, jstring name,
                                                             jlong classes, jboolean pretrained,
                                                             jstring root, jint type, jint id) {
  (void)cls;
  cstr n, r;
  if (cstr_get(env, name, &n)) return 0;
  if (cstr_get(env, root, &r)) {
    cstr_free(&n);
    return 0;
  }
  mxc_model_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.classes = classes;
  o.pretrained = pretrained ? 1 : 0;
  o.root = r.p;
  o.device = dev(type, id);
  mxc_block* out = NULL;
  mxc_status* s = mxc_model_zoo_get(n.p, &o, &out);
  cstr_free(&r), cstr_free(&n);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockFree(JNIEnv* env, jclass cls, jlong b) {
  (void)env, (void)cls;
  mxc_block_free(H(mxc_block, b));
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symbolBlockImports(JNIEnv* env, jclass cls,
                                                                    jstring symbol_file,
                                                                    jobjectArray input_names,
                                                                    jstring param_file, jint type,
                                                                    jint id) {
  (void)cls;
  cstr sf, pf;
  cstrs in;
  if (cstr_get(env, symbol_file, &sf)) return 0;
  if (cstr_get(env, param_file, &pf)) {
    cstr_free(&sf);
    return 0;
  }
  if (cstrs_get(env, input_names, "inputNames", &in)) {
    cstr_free(&pf), cstr_free(&sf);
    return 0;
  }
  mxc_block* out = NULL;
  mxc_status* s = mxc_symbol_block_imports(sf.p, in.v, in.n, pf.p, dev(type, id), &out);
  cstrs_free(&in), cstr_free(&pf), cstr_free(&sf);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symbolBlockCreate(JNIEnv* env, jclass cls,
                                                                   jlong symbol,
                                                                   jobjectArray input_names) {
  (void)cls;
  cstrs in;
  if (cstrs_get(env, input_names, "inputNames", &in)) return 0;
  mxc_block* out = NULL;
  mxc_status* s = mxc_symbol_block_create(H(mxc_symbol, symbol), in.v, in.n, &out);
  cstrs_free(&in);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockInitialize(JNIEnv* env, jclass cls, jlong ctx,
                                                                jlong b, jstring init, jint type,
                                                                jint id, jboolean force) {
  (void)cls;
  cstr i;
  if (cstr_get(env, init, &i)) return;
  mxc_status* s =
      mxc_block_initialize(H(mxc_ctx, ctx), H(mxc_block, b), i.p, dev(type, id), force ? 1 : 0);
  cstr_free(&i);
  failed(env, s);
}

/* Output handles of a call into a new long[] (or the outputs freed on failure). */
static jlongArray take_outputs(JNIEnv* env, mxc_status* s, mxc_ndarray** out, size_t n) {
  if (failed(env, s)) return NULL;
  jlongArray r = new_handle_array(env, (void* const*)out, n);
  if (!r) {
    for (size_t i = 0; i < n; i++) mxc_ndarray_free(out[i]);
  }
  return r;
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_blockCall(JNIEnv* env, jclass cls, jlong ctx,
                                                                jlong b, jlongArray inputs) {
  (void)cls;
  handles in;
  if (handles_get(env, inputs, &in)) return NULL;
  mxc_ndarray* small[SMALL];
  size_t n = 0;
  mxc_status* s = mxc_block_call(H(mxc_ctx, ctx), H(mxc_block, b), (mxc_ndarray* const*)in.v, in.n,
                                 small, SMALL, &n);
  jlongArray r = NULL;
  if (s && mxc_status_code(s) == MXC_OUT_OF_RANGE) {
    /* Maybe more outputs than SMALL: retry once with room for many. */
    enum { BIG = 4096 };
    mxc_ndarray** big = (mxc_ndarray**)malloc(BIG * sizeof(mxc_ndarray*));
    if (big) {
      mxc_status_free(s);
      s = mxc_block_call(H(mxc_ctx, ctx), H(mxc_block, b), (mxc_ndarray* const*)in.v, in.n, big,
                         BIG, &n);
      r = take_outputs(env, s, big, n);
      free(big);
      handles_free(&in);
      return r;
    }
  }
  r = take_outputs(env, s, small, n);
  handles_free(&in);
  return r;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockHybridize(JNIEnv* env, jclass cls, jlong b,
                                                               jboolean deactivate,
                                                               jboolean static_alloc,
                                                               jboolean static_shape,
                                                               jstring backend) {
  (void)cls;
  cstr be;
  if (cstr_get(env, backend, &be)) return;
  mxc_hybridize_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.deactivate = deactivate ? 1 : 0;
  o.static_alloc = static_alloc ? 1 : 0;
  o.static_shape = static_shape ? 1 : 0;
  o.backend = be.p;
  mxc_status* s = mxc_block_hybridize(H(mxc_block, b), &o);
  cstr_free(&be);
  failed(env, s);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockExport(JNIEnv* env, jclass cls, jlong b,
                                                            jstring path, jint epoch) {
  (void)cls;
  cstr p;
  if (cstr_get(env, path, &p)) return;
  mxc_status* s = mxc_block_export(H(mxc_block, b), p.p, epoch);
  cstr_free(&p);
  failed(env, s);
}

/* ONNX (ABI 1.2). ndims[i] dims of input i, one input after the other in dims. */
JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockExportOnnx(JNIEnv* env, jclass cls, jlong ctx,
                                                                jlong b, jlongArray ndims,
                                                                jlongArray dims_, jstring path,
                                                                jint opset, jboolean static_batch) {
  (void)cls;
  dims nd, d;
  cstr p;
  if (dims_get(env, ndims, &nd)) return;
  if (dims_get(env, dims_, &d)) {
    dims_free(&nd);
    return;
  }
  if (cstr_get(env, path, &p)) {
    dims_free(&d), dims_free(&nd);
    return;
  }
  size_t* n = (size_t*)malloc((nd.n + 1) * sizeof(size_t));
  if (!n) {
    cstr_free(&p), dims_free(&d), dims_free(&nd);
    throw_oom(env);
    return;
  }
  for (size_t i = 0; i < nd.n; i++) n[i] = nd.v[i] < 0 ? (size_t)-1 : (size_t)nd.v[i];
  mxc_onnx_export_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.opset = opset;
  o.static_batch = static_batch ? 1 : 0;
  mxc_status* s = mxc_block_export_onnx(H(mxc_ctx, ctx), H(mxc_block, b), n, d.v, nd.n, p.p, &o);
  free(n);
  cstr_free(&p), dims_free(&d), dims_free(&nd);
  failed(env, s);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_symbolBlockImportsOnnx(JNIEnv* env, jclass cls,
                                                                        jstring path,
                                                                        jbyteArray bytes, jint type,
                                                                        jint id) {
  (void)cls;
  mxc_block* out = NULL;
  mxc_status* s;
  if (path) {
    cstr p;
    if (cstr_get(env, path, &p)) return 0;
    s = mxc_symbol_block_imports_onnx(p.p, dev(type, id), &out);
    cstr_free(&p);
  } else {
    jsize n = (*env)->GetArrayLength(env, bytes);
    jbyte* m = (*env)->GetByteArrayElements(env, bytes, NULL);
    if (!m) return 0;
    s = mxc_symbol_block_imports_onnx_bytes(m, (size_t)n, dev(type, id), &out);
    (*env)->ReleaseByteArrayElements(env, bytes, m, JNI_ABORT);
  }
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockSaveParameters(JNIEnv* env, jclass cls,
                                                                    jlong b, jstring path) {
  (void)cls;
  cstr p;
  if (cstr_get(env, path, &p)) return;
  mxc_status* s = mxc_block_save_parameters(H(mxc_block, b), p.p);
  cstr_free(&p);
  failed(env, s);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockLoadParameters(
    JNIEnv* env, jclass cls, jlong b, jstring path, jint type, jint id, jboolean allow_missing,
    jboolean ignore_extra, jboolean cast_dtype) {
  (void)cls;
  cstr p;
  if (cstr_get(env, path, &p)) return;
  mxc_load_parameters_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.device = dev(type, id);
  o.allow_missing = allow_missing ? 1 : 0;
  o.ignore_extra = ignore_extra ? 1 : 0;
  o.cast_dtype = cast_dtype ? 1 : 0;
  mxc_status* s = mxc_block_load_parameters(H(mxc_block, b), p.p, &o);
  cstr_free(&p);
  failed(env, s);
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_blockCollectParams(JNIEnv* env, jclass cls,
                                                                         jlong b, jstring select) {
  (void)cls;
  cstr sel;
  if (cstr_get(env, select, &sel)) return NULL;
  mxc_parameter** ps = NULL;
  size_t n = 0;
  mxc_status* s = mxc_block_collect_params(H(mxc_block, b), sel.p, &ps, &n);
  cstr_free(&sel);
  if (failed(env, s)) return NULL;
  /* Java keeps each handle: take an extra reference, then free the list (-1 each). */
  for (size_t i = 0; i < n; i++) {
    mxc_status* r = mxc_parameter_retain(ps[i]);
    if (r) {
      for (size_t j = 0; j < i; j++) mxc_parameter_free(ps[j]);
      mxc_parameter_array_free(ps, n);
      failed(env, r);
      return NULL;
    }
  }
  jlongArray out = new_handle_array(env, (void* const*)ps, n);
  if (!out) {
    for (size_t i = 0; i < n; i++) mxc_parameter_free(ps[i]);
  }
  mxc_parameter_array_free(ps, n);
  return out;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_blockZeroGrad(JNIEnv* env, jclass cls, jlong b) {
  (void)cls;
  failed(env, mxc_block_zero_grad(H(mxc_block, b)));
}

JNIEXPORT jstring JNICALL Java_org_mxnetcpp_Native_blockToString(JNIEnv* env, jclass cls, jlong b) {
  (void)cls;
  char* text = NULL;
  mxc_status* s = mxc_block_to_string(H(mxc_block, b), &text);
  return take_string(env, s, text);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_paramFree(JNIEnv* env, jclass cls, jlong p) {
  (void)env, (void)cls;
  mxc_parameter_free(H(mxc_parameter, p));
}

JNIEXPORT jstring JNICALL Java_org_mxnetcpp_Native_paramName(JNIEnv* env, jclass cls, jlong p) {
  (void)cls;
  char* name = NULL;
  mxc_status* s = mxc_parameter_name(H(mxc_parameter, p), &name);
  return take_string(env, s, name);
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_paramShape(JNIEnv* env, jclass cls, jlong p) {
  (void)cls;
  int64_t d[64];
  int32_t ndim = 0;
  if (failed(env, mxc_parameter_shape(H(mxc_parameter, p), d, 64, &ndim))) return NULL;
  if (ndim < 0) return NULL;
  return new_longs(env, (const jlong*)d, (size_t)ndim);
}

JNIEXPORT jint JNICALL Java_org_mxnetcpp_Native_paramDtype(JNIEnv* env, jclass cls, jlong p) {
  (void)cls;
  int32_t d = -1;
  if (failed(env, mxc_parameter_dtype(H(mxc_parameter, p), &d))) return -1;
  return d;
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_paramArray(JNIEnv* env, jclass cls, jlong p,
                                                            jboolean grad, jint type, jint id) {
  (void)cls;
  mxc_ndarray* out = NULL;
  mxc_status* s = grad ? mxc_parameter_grad(H(mxc_parameter, p), dev(type, id), &out)
                       : mxc_parameter_data(H(mxc_parameter, p), dev(type, id), &out);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_paramSetData(JNIEnv* env, jclass cls, jlong p,
                                                             jlong value) {
  (void)cls;
  failed(env, mxc_parameter_set_data(H(mxc_parameter, p), H(mxc_ndarray, value)));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_paramInitialize(JNIEnv* env, jclass cls, jlong ctx,
                                                                jlong p, jstring init, jint type,
                                                                jint id, jboolean force) {
  (void)cls;
  cstr i;
  if (cstr_get(env, init, &i)) return;
  mxc_status* s = mxc_parameter_initialize(H(mxc_ctx, ctx), H(mxc_parameter, p), i.p, dev(type, id),
                                           force ? 1 : 0);
  cstr_free(&i);
  failed(env, s);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_paramZeroGrad(JNIEnv* env, jclass cls, jlong p) {
  (void)cls;
  failed(env, mxc_parameter_zero_grad(H(mxc_parameter, p)));
}

JNIEXPORT jint JNICALL Java_org_mxnetcpp_Native_paramGradReq(JNIEnv* env, jclass cls, jlong p) {
  (void)cls;
  int32_t r = 0;
  if (failed(env, mxc_parameter_grad_req(H(mxc_parameter, p), &r))) return -1;
  return r;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_paramSetGradReq(JNIEnv* env, jclass cls, jlong p,
                                                                jint req) {
  (void)cls;
  failed(env, mxc_parameter_set_grad_req(H(mxc_parameter, p), req));
}

JNIEXPORT jdouble JNICALL Java_org_mxnetcpp_Native_paramMult(JNIEnv* env, jclass cls, jlong p,
                                                             jboolean wd) {
  (void)cls;
  double v = 0;
  mxc_status* s = wd ? mxc_parameter_wd_mult(H(mxc_parameter, p), &v)
                     : mxc_parameter_lr_mult(H(mxc_parameter, p), &v);
  return failed(env, s) ? 0 : v;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_paramSetMult(JNIEnv* env, jclass cls, jlong p,
                                                             jboolean wd, jdouble v) {
  (void)cls;
  failed(env, wd ? mxc_parameter_set_wd_mult(H(mxc_parameter, p), v)
                 : mxc_parameter_set_lr_mult(H(mxc_parameter, p), v));
}

/* ---- training: losses, Trainer (mxc/training.h) ---- */

JNIEXPORT jobjectArray JNICALL Java_org_mxnetcpp_Native_lossList(JNIEnv* env, jclass cls) {
  (void)cls;
  char** names = NULL;
  size_t count = 0;
  mxc_status* s = mxc_loss_list(&names, &count);
  return take_strings(env, s, names, count);
}

/* Reads keys/values String[]s of equal length; returns 0 or -1 with an exception pending. */
static int kwargs_get(JNIEnv* env, jobjectArray keys, jobjectArray values, cstrs* k, cstrs* v) {
  if (cstrs_get(env, keys, "keys", k)) return -1;
  if (cstrs_get(env, values, "values", v)) {
    cstrs_free(k);
    return -1;
  }
  if (k->n != v->n) {
    cstrs_free(v), cstrs_free(k);
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: keys and values differ in length");
    return -1;
  }
  return 0;
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_lossCreate(JNIEnv* env, jclass cls, jstring name,
                                                            jobjectArray keys,
                                                            jobjectArray values) {
  (void)cls;
  cstr n;
  cstrs k, v;
  if (cstr_get(env, name, &n)) return 0;
  if (kwargs_get(env, keys, values, &k, &v)) {
    cstr_free(&n);
    return 0;
  }
  mxc_block* out = NULL;
  mxc_status* s = mxc_loss_create(n.p, k.v, v.v, k.n, &out);
  cstrs_free(&v), cstrs_free(&k), cstr_free(&n);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_trainerCreate(JNIEnv* env, jclass cls,
                                                               jlongArray params, jstring optimizer,
                                                               jobjectArray keys,
                                                               jobjectArray values) {
  (void)cls;
  handles ps;
  cstr o;
  cstrs k, v;
  if (handles_get(env, params, &ps)) return 0;
  if (cstr_get(env, optimizer, &o)) {
    handles_free(&ps);
    return 0;
  }
  if (kwargs_get(env, keys, values, &k, &v)) {
    cstr_free(&o), handles_free(&ps);
    return 0;
  }
  mxc_trainer* out = NULL;
  mxc_status* s = mxc_trainer_create((mxc_parameter* const*)ps.v, ps.n, o.p, k.v, v.v, k.n, &out);
  cstrs_free(&v), cstrs_free(&k), cstr_free(&o), handles_free(&ps);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_trainerFree(JNIEnv* env, jclass cls, jlong t) {
  (void)env, (void)cls;
  mxc_trainer_free(H(mxc_trainer, t));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_trainerStep(JNIEnv* env, jclass cls, jlong ctx,
                                                            jlong t, jdouble batch_size,
                                                            jboolean ignore_stale) {
  (void)cls;
  failed(env,
         mxc_trainer_step(H(mxc_ctx, ctx), H(mxc_trainer, t), batch_size, ignore_stale ? 1 : 0));
}

JNIEXPORT jdouble JNICALL Java_org_mxnetcpp_Native_trainerLearningRate(JNIEnv* env, jclass cls,
                                                                       jlong t) {
  (void)cls;
  double lr = 0;
  return failed(env, mxc_trainer_learning_rate(H(mxc_trainer, t), &lr)) ? 0 : lr;
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_trainerSetLearningRate(JNIEnv* env, jclass cls,
                                                                       jlong t, jdouble lr) {
  (void)cls;
  failed(env, mxc_trainer_set_learning_rate(H(mxc_trainer, t), lr));
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_trainerStates(JNIEnv* env, jclass cls, jlong t,
                                                              jstring path, jboolean load) {
  (void)cls;
  cstr p;
  if (cstr_get(env, path, &p)) return;
  mxc_status* s = load ? mxc_trainer_load_states(H(mxc_trainer, t), p.p)
                       : mxc_trainer_save_states(H(mxc_trainer, t), p.p);
  cstr_free(&p);
  failed(env, s);
}

/* ---- data: images, transforms, datasets, loaders (mxc/data.h) ---- */

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_imageDecode(JNIEnv* env, jclass cls,
                                                             jbyteArray bytes, jint flag,
                                                             jboolean to_rgb) {
  (void)cls;
  jsize n = (*env)->GetArrayLength(env, bytes);
  jbyte* b = (*env)->GetByteArrayElements(env, bytes, NULL);
  if (!b) return 0;
  mxc_ndarray* out = NULL;
  mxc_status* s = mxc_image_decode(b, (size_t)n, flag, to_rgb ? 1 : 0, &out);
  (*env)->ReleaseByteArrayElements(env, bytes, b, JNI_ABORT);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_imageRead(JNIEnv* env, jclass cls, jstring path,
                                                           jint flag, jboolean to_rgb) {
  (void)cls;
  cstr p;
  if (cstr_get(env, path, &p)) return 0;
  mxc_ndarray* out = NULL;
  mxc_status* s = mxc_image_read(p.p, flag, to_rgb ? 1 : 0, &out);
  cstr_free(&p);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_imageResizeShort(JNIEnv* env, jclass cls,
                                                                  jlong image, jlong size,
                                                                  jint interp,
                                                                  jboolean round_long) {
  (void)cls;
  mxc_ndarray* out = NULL;
  mxc_status* s =
      mxc_image_resize_short(H(mxc_ndarray, image), size, interp, round_long ? 1 : 0, &out);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_transformFree(JNIEnv* env, jclass cls, jlong t) {
  (void)env, (void)cls;
  mxc_transform_free(H(mxc_transform, t));
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformToTensor(JNIEnv* env, jclass cls) {
  (void)cls;
  mxc_transform* out = NULL;
  return failed(env, mxc_transform_to_tensor(&out)) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformNormalize(JNIEnv* env, jclass cls,
                                                                    jfloatArray mean,
                                                                    jfloatArray std) {
  (void)cls;
  if (!mean || !std) {
    throw_code(env, MXC_INVALID_ARGUMENT, "mxc_jni: mean and std must not be null");
    return 0;
  }
  jsize nm = (*env)->GetArrayLength(env, mean), ns = (*env)->GetArrayLength(env, std);
  float* m = (float*)malloc(((size_t)nm + 1) * sizeof(float));
  float* sd = (float*)malloc(((size_t)ns + 1) * sizeof(float));
  if (!m || !sd) {
    free(m), free(sd);
    throw_oom(env);
    return 0;
  }
  (*env)->GetFloatArrayRegion(env, mean, 0, nm, m);
  (*env)->GetFloatArrayRegion(env, std, 0, ns, sd);
  mxc_transform* out = NULL;
  mxc_status* s = mxc_transform_normalize(m, (size_t)nm, sd, (size_t)ns, &out);
  free(m), free(sd);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformResize(JNIEnv* env, jclass cls, jlong w,
                                                                 jlong h, jboolean keep_ratio,
                                                                 jint interp) {
  (void)cls;
  mxc_transform* out = NULL;
  return failed(env, mxc_transform_resize(w, h, keep_ratio ? 1 : 0, interp, &out)) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformCenterCrop(JNIEnv* env, jclass cls,
                                                                     jlong w, jlong h,
                                                                     jint interp) {
  (void)cls;
  mxc_transform* out = NULL;
  return failed(env, mxc_transform_center_crop(w, h, interp, &out)) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformCast(JNIEnv* env, jclass cls,
                                                               jint dtype) {
  (void)cls;
  mxc_transform* out = NULL;
  return failed(env, mxc_transform_cast(dtype, &out)) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformCompose(JNIEnv* env, jclass cls,
                                                                  jlongArray steps) {
  (void)cls;
  handles h;
  if (handles_get(env, steps, &h)) return 0;
  mxc_transform* out = NULL;
  mxc_status* s = mxc_transform_compose((mxc_transform* const*)h.v, h.n, &out);
  handles_free(&h);
  return failed(env, s) ? 0 : J(out);
}

/* Callbacks into Java: the calling thread (a DataLoader worker, or any other native thread) is
 * attached to the JVM once, as a daemon, and detached when it exits (a pthread key destructor). */
static pthread_key_t g_detach_key;
static pthread_once_t g_detach_once = PTHREAD_ONCE_INIT;
static jclass g_transform;       /* org.mxnetcpp.Transform */
static jmethodID g_run_callback; /* static Object runCallback(Object fn, long input) */

static void detach_thread(void* unused) {
  (void)unused;
  (*g_vm)->DetachCurrentThread(g_vm);
}

static void make_detach_key(void) { pthread_key_create(&g_detach_key, detach_thread); }

static JNIEnv* callback_env(void) {
  JNIEnv* env = NULL;
  jint rc = (*g_vm)->GetEnv(g_vm, (void**)&env, JNI_VERSION_1_8);
  if (rc == JNI_OK) return env;
  if (rc != JNI_EDETACHED) return NULL;
  if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void**)&env, NULL) != JNI_OK) return NULL;
  pthread_once(&g_detach_once, make_detach_key);
  pthread_setspecific(g_detach_key, (void*)1);
  return env;
}

static mxc_status* java_transform(void* user_data, mxc_ndarray* input, mxc_ndarray** output) {
  JNIEnv* env = callback_env();
  if (!env) return mxc_status_create(MXC_INTERNAL, "mxc_jni: cannot attach the thread to the JVM");
  if ((*env)->PushLocalFrame(env, 8) != 0) {
    (*env)->ExceptionClear(env);
    return mxc_status_create(MXC_RESOURCE_EXHAUSTED, "mxc_jni: no room for local references");
  }
  jobject r = (*env)->CallStaticObjectMethod(env, g_transform, g_run_callback, (jobject)user_data,
                                             J(input));
  mxc_status* s = NULL;
  if ((*env)->ExceptionCheck(env) || !r) {
    (*env)->ExceptionClear(env);
    s = mxc_status_create(MXC_INTERNAL, "mxc_jni: the Java transform failed");
  } else if ((*env)->IsInstanceOf(env, r, g_string)) {
    const char* msg = (*env)->GetStringUTFChars(env, (jstring)r, NULL);
    s = mxc_status_create(MXC_INVALID_ARGUMENT, msg ? msg : "the Java transform failed");
    if (msg) (*env)->ReleaseStringUTFChars(env, (jstring)r, msg);
  } else {
    jlongArray a = (jlongArray)r;
    jlong h = 0;
    (*env)->GetLongArrayRegion(env, a, 0, 1, &h);
    *output = H(mxc_ndarray, h);
  }
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

static void java_transform_free(void* user_data) {
  JNIEnv* env = callback_env();
  if (env) (*env)->DeleteGlobalRef(env, (jobject)user_data);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformFromCallback(JNIEnv* env, jclass cls,
                                                                       jobject fn) {
  (void)cls;
  if (!g_transform) {
    jclass t = global_class(env, "org/mxnetcpp/Transform");
    if (!t) return 0;
    g_run_callback =
        (*env)->GetStaticMethodID(env, t, "runCallback", "(Ljava/lang/Object;J)Ljava/lang/Object;");
    if (!g_run_callback) return 0;
    g_transform = t; /* a benign race: every thread stores the same global class */
  }
  jobject ref = (*env)->NewGlobalRef(env, fn);
  if (!ref) {
    throw_oom(env);
    return 0;
  }
  mxc_transform* out = NULL;
  mxc_status* s = mxc_transform_from_callback(java_transform, ref, java_transform_free, &out);
  if (s) (*env)->DeleteGlobalRef(env, ref); /* on error free_user_data is never called */
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_transformApply(JNIEnv* env, jclass cls, jlong t,
                                                                jlong input) {
  (void)cls;
  mxc_ndarray* out = NULL;
  mxc_status* s = mxc_transform_apply(H(mxc_transform, t), H(mxc_ndarray, input), &out);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jstring JNICALL Java_org_mxnetcpp_Native_transformToString(JNIEnv* env, jclass cls,
                                                                     jlong t) {
  (void)cls;
  char* text = NULL;
  mxc_status* s = mxc_transform_to_string(H(mxc_transform, t), &text);
  return take_string(env, s, text);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_datasetFree(JNIEnv* env, jclass cls, jlong d) {
  (void)env, (void)cls;
  mxc_dataset_free(H(mxc_dataset, d));
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_datasetVision(JNIEnv* env, jclass cls,
                                                               jstring root, jboolean train,
                                                               jboolean fashion) {
  (void)cls;
  cstr r;
  if (cstr_get(env, root, &r)) return 0;
  mxc_dataset* out = NULL;
  mxc_status* s = fashion ? mxc_dataset_fashion_mnist(r.p, train ? 1 : 0, &out)
                          : mxc_dataset_mnist(r.p, train ? 1 : 0, &out);
  cstr_free(&r);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_datasetFromArrays(JNIEnv* env, jclass cls,
                                                                   jlongArray columns) {
  (void)cls;
  handles h;
  if (handles_get(env, columns, &h)) return 0;
  mxc_dataset* out = NULL;
  mxc_status* s = mxc_dataset_from_arrays((mxc_ndarray* const*)h.v, h.n, &out);
  handles_free(&h);
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_datasetSize(JNIEnv* env, jclass cls, jlong d) {
  (void)cls;
  int64_t n = 0;
  return failed(env, mxc_dataset_size(H(mxc_dataset, d), &n)) ? 0 : (jlong)n;
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_datasetGet(JNIEnv* env, jclass cls, jlong d,
                                                                 jlong index) {
  (void)cls;
  mxc_ndarray* out[SMALL];
  size_t n = 0;
  mxc_status* s = mxc_dataset_get(H(mxc_dataset, d), index, out, SMALL, &n);
  return take_outputs(env, s, out, n);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_datasetDerive(JNIEnv* env, jclass cls, jlong d,
                                                               jint how, jlong a, jlong b) {
  (void)cls;
  mxc_dataset* out = NULL;
  mxc_status* s;
  switch (how) {
    case 0:
      s = mxc_dataset_take(H(mxc_dataset, d), a, &out);
      break;
    case 1:
      s = mxc_dataset_shard(H(mxc_dataset, d), a, b, &out);
      break;
    case 2:
      s = mxc_dataset_transform_first(H(mxc_dataset, d), H(mxc_transform, a), 1, &out);
      break;
    default:
      s = mxc_dataset_transform_first(H(mxc_dataset, d), H(mxc_transform, a), 0, &out);
      break;
  }
  return failed(env, s) ? 0 : J(out);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_dataloaderFree(JNIEnv* env, jclass cls, jlong l) {
  (void)env, (void)cls;
  mxc_dataloader_free(H(mxc_dataloader, l));
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_dataloaderCreate(JNIEnv* env, jclass cls, jlong d,
                                                                  jlong batch_size,
                                                                  jboolean shuffle, jint last_batch,
                                                                  jint num_workers, jint prefetch) {
  (void)cls;
  mxc_dataloader_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.batch_size = batch_size;
  o.shuffle = shuffle ? 1 : 0;
  o.last_batch = last_batch;
  o.num_workers = num_workers;
  o.prefetch = prefetch;
  mxc_dataloader* out = NULL;
  return failed(env, mxc_dataloader_create(H(mxc_dataset, d), &o, &out)) ? 0 : J(out);
}

JNIEXPORT jlong JNICALL Java_org_mxnetcpp_Native_dataloaderSize(JNIEnv* env, jclass cls, jlong l) {
  (void)cls;
  int64_t n = 0;
  return failed(env, mxc_dataloader_size(H(mxc_dataloader, l), &n)) ? 0 : (jlong)n;
}

JNIEXPORT jlongArray JNICALL Java_org_mxnetcpp_Native_dataloaderNext(JNIEnv* env, jclass cls,
                                                                     jlong ctx, jlong l) {
  (void)cls;
  mxc_ndarray* out[SMALL];
  size_t n = 0;
  int32_t has = 0;
  mxc_status* s = mxc_dataloader_next(H(mxc_ctx, ctx), H(mxc_dataloader, l), out, SMALL, &n, &has);
  if (!s && !has) return NULL; /* end of the epoch */
  return take_outputs(env, s, out, n);
}

JNIEXPORT void JNICALL Java_org_mxnetcpp_Native_dataloaderReset(JNIEnv* env, jclass cls, jlong l) {
  (void)cls;
  failed(env, mxc_dataloader_reset(H(mxc_dataloader, l)));
}
