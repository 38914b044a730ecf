/*
 * replay-farm's CUPTI shim: the JNI face of the PC-sampling session in pcsession.c, for
 * org.replayfarm.gpunode.sampling.CuptiShim. Java drives the order (shared/reference/cupti-pc-sampling.md §1):
 * nativeInitActivity once per process, nativeConfigure right after the context exists and before any module
 * is loaded, nativeSynchronize before each nativeStart, nativeDrain with PCs only after nativeStop, and
 * nativeStop (if started), nativeDrain, nativeDisable before a context reset and at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcsession.h"

/* Layouts the Java side and gpu.md rely on (checked with gcc on x86-64, CUDA 13.0). */
_Static_assert(sizeof(CUpti_PCSamplingPCData) == 64, "CUpti_PCSamplingPCData is 64 bytes");
_Static_assert(offsetof(CUpti_PCSamplingPCData, cubinCrc) == 8, "cubinCrc at 8");
_Static_assert(offsetof(CUpti_PCSamplingPCData, pcOffset) == 16, "pcOffset at 16");
_Static_assert(offsetof(CUpti_PCSamplingPCData, functionName) == 32, "functionName at 32");
_Static_assert(offsetof(CUpti_PCSamplingPCData, correlationId) == 56, "correlationId at 56");
_Static_assert(sizeof(CUpti_PCSamplingData) == 80, "CUpti_PCSamplingData is 80 bytes");
_Static_assert(offsetof(CUpti_ActivityKernel10, start) == 16, "kernel start at 16");
_Static_assert(offsetof(CUpti_ActivityKernel10, end) == 24, "kernel end at 24");
_Static_assert(offsetof(CUpti_ActivityKernel10, correlationId) == 92, "correlationId at 92");
_Static_assert(offsetof(CUpti_ActivityKernel10, graphId) == 156, "graphId at 156");

static jint fail(JNIEnv *env, jobjectArray messageOut, const char *what, CUptiResult r) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s: CUPTI error %d (%s)", what, (int)r, pcs_result_string(r));
    if (messageOut != NULL && (*env)->GetArrayLength(env, messageOut) > 0) {
        (*env)->SetObjectArrayElement(env, messageOut, 0, (*env)->NewStringUTF(env, buf));
    }
    return (jint)r;
}

static jint say(JNIEnv *env, jobjectArray messageOut, const char *text, jint code) {
    if (messageOut != NULL && (*env)->GetArrayLength(env, messageOut) > 0) {
        (*env)->SetObjectArrayElement(env, messageOut, 0, (*env)->NewStringUTF(env, text));
    }
    return code;
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeVersion(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    uint32_t v = 0;
    return pcs_version(&v) == CUPTI_SUCCESS ? (jint)v : -1;
}

JNIEXPORT jlong JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeTimestamp(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    uint64_t t = 0;
    return pcs_timestamp(&t) == CUPTI_SUCCESS ? (jlong)t : -1;
}

/* Activity callbacks and CONCURRENT_KERNEL, once per process (later calls return the first one's result). */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeInitActivity(
        JNIEnv *env, jclass cls, jobjectArray messageOut) {
    (void)cls;
    const char *what = "";
    CUptiResult r = pcs_init_activity(&what);
    return r == CUPTI_SUCCESS ? 0 : fail(env, messageOut, what, r);
}

/*
 * Enables PC sampling on ctx, reads the stall reasons and configures it once for the session (collectionMode
 * 1 continuous, 2 kernel-serialized; start/stop control; buffers; parsed output). Returns 0 and fills names[0]
 * with a String[] of stall-reason names by index, or a CUPTI error code with message[0] saying which call;
 * on failure sampling is disabled again.
 */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeConfigure(
        JNIEnv *env, jclass cls, jlong jctx, jint collectionMode, jobjectArray namesOut, jobjectArray messageOut) {
    (void)cls;
    const char *what = "";
    CUptiResult r = pcs_configure((CUcontext)(uintptr_t)jctx, (CUpti_PCSamplingCollectionMode)collectionMode, &what);
    if (r != CUPTI_SUCCESS) {
        return fail(env, messageOut, what, r);
    }
    size_t n = pcs_num_stall_reasons();
    uint32_t max_index = 0;
    for (size_t i = 0; i < n; i++) {
        if (pcs_stall_reason_index(i) > max_index) max_index = pcs_stall_reason_index(i);
    }
    /* Java indexes names by the index CUPTI puts in PC records */
    jobjectArray arr = (*env)->NewObjectArray(env, (jsize)(n ? max_index + 1 : 0),
                                              (*env)->FindClass(env, "java/lang/String"), NULL);
    for (size_t i = 0; i < n; i++) {
        (*env)->SetObjectArrayElement(env, arr, (jsize)pcs_stall_reason_index(i),
                                      (*env)->NewStringUTF(env, pcs_stall_reason_name(i)));
    }
    (*env)->SetObjectArrayElement(env, namesOut, 0, arr);
    return 0;
}

typedef int (*cu_ctx_synchronize_fn)(void);

/* cuCtxSynchronize on the calling thread's current context (CUPTI wants the GPU idle before a start). */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeSynchronize(
        JNIEnv *env, jclass cls, jlong jctx, jobjectArray messageOut) {
    (void)cls;
    (void)jctx;
    static cu_ctx_synchronize_fn sync;
    if (sync == NULL) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (h == NULL) h = dlopen("libcuda.so.1", RTLD_NOW);
        if (h != NULL) sync = (cu_ctx_synchronize_fn)dlsym(h, "cuCtxSynchronize");
        if (sync == NULL) {
            return say(env, messageOut, "cuCtxSynchronize: libcuda.so.1 is not loaded", -2);
        }
    }
    int r = sync();
    if (r != 0) {
        char buf[128];
        snprintf(buf, sizeof buf, "cuCtxSynchronize: CUDA error %d", r);
        return say(env, messageOut, buf, -2);
    }
    return 0;
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeStart(
        JNIEnv *env, jclass cls, jlong jctx, jobjectArray messageOut) {
    (void)cls;
    const char *what = "";
    CUptiResult r = pcs_start((CUcontext)(uintptr_t)jctx, &what);
    return r == CUPTI_SUCCESS ? 0 : fail(env, messageOut, what, r);
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeStop(
        JNIEnv *env, jclass cls, jlong jctx, jobjectArray messageOut) {
    (void)cls;
    const char *what = "";
    CUptiResult r = pcs_stop((CUcontext)(uintptr_t)jctx, &what);
    return r == CUPTI_SUCCESS ? 0 : fail(env, messageOut, what, r);
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeDisable(
        JNIEnv *env, jclass cls, jlong jctx, jobjectArray messageOut) {
    (void)cls;
    const char *what = "";
    CUptiResult r = pcs_disable((CUcontext)(uintptr_t)jctx, &what);
    return r == CUPTI_SUCCESS ? 0 : fail(env, messageOut, what, r);
}

typedef struct {
    JNIEnv *env;
    jobject sink;
    jmethodID on_pc;
    jmethodID on_kernel;
} drain_ctx;

static void pc_to_java(void *arg, const CUpti_PCSamplingPCData *pc) {
    drain_ctx *c = arg;
    JNIEnv *env = c->env;
    if ((*env)->ExceptionCheck(env)) {
        return;
    }
    /* NewStringUTF copies: functionName stays CUPTI's */
    jstring fn = (*env)->NewStringUTF(env, pc->functionName ? pc->functionName : "?");
    for (size_t s = 0; s < pc->stallReasonCount && pc->stallReason != NULL; s++) {
        const CUpti_PCSamplingStallReason *sr = &pc->stallReason[s];
        if (sr->samples > 0) {
            (*env)->CallVoidMethod(env, c->sink, c->on_pc, fn, (jlong)pc->cubinCrc, (jlong)pc->pcOffset,
                                   (jint)sr->pcSamplingStallReasonIndex, (jint)sr->samples, (jint)pc->correlationId);
        }
    }
    (*env)->DeleteLocalRef(env, fn);
}

static void kernel_to_java(void *arg, const char *name, uint64_t start, uint64_t end, uint32_t correlation,
                           uint32_t graph) {
    drain_ctx *c = arg;
    JNIEnv *env = c->env;
    if ((*env)->ExceptionCheck(env)) {
        return;
    }
    jstring s = (*env)->NewStringUTF(env, name);
    (*env)->CallVoidMethod(env, c->sink, c->on_kernel, s, (jlong)start, (jlong)end, (jint)correlation, (jint)graph);
    (*env)->DeleteLocalRef(env, s);
}

/*
 * With pcs (only after a stop): the PC data, bounded (pcsession.c), then a forced activity flush; without: the
 * kernel activity only (a plain flush). Calls sink.pc(String function, long cubinCrc, long pcOffset,
 * int stallReasonIndex, int samples, int correlationId) per (PC, stall reason) with samples and
 * sink.kernel(String name, long start, long end, int correlationId, int graphId) per kernel record.
 * Returns 0; CUPTI_ERROR_OUT_OF_MEMORY (8) when the hardware buffer was full (the caller disables, enables and
 * configures again); another code with message[0] saying which call; -1 with a Java exception pending.
 */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeDrain(
        JNIEnv *env, jclass cls, jlong jctx, jboolean pcs, jobject sink, jobjectArray messageOut) {
    (void)cls;
    jclass sc = (*env)->GetObjectClass(env, sink);
    drain_ctx c = {env, sink, (*env)->GetMethodID(env, sc, "pc", "(Ljava/lang/String;JJIII)V"),
                   (*env)->GetMethodID(env, sc, "kernel", "(Ljava/lang/String;JJII)V")};
    if (c.on_pc == NULL || c.on_kernel == NULL) {
        return -1; /* NoSuchMethodError is pending in Java */
    }
    const char *what = "";
    CUptiResult r;
    jint result = 0;
    if (pcs) {
        pcs_drain_stats st;
        r = pcs_drain((CUcontext)(uintptr_t)jctx, pc_to_java, NULL, &c, &st, &what);
        if ((*env)->ExceptionCheck(env)) {
            return -1;
        }
        if (r != CUPTI_SUCCESS) {
            result = fail(env, messageOut, what, r);
            if (r != CUPTI_ERROR_OUT_OF_MEMORY) {
                return result;
            }
        }
    }
    if ((r = pcs_flush_activity(pcs ? 1 : 0, &what)) != CUPTI_SUCCESS) {
        return fail(env, messageOut, what, r);
    }
    pcs_take_kernels(kernel_to_java, &c);
    return (*env)->ExceptionCheck(env) ? -1 : result;
}

/* Kernel records lost because the queue was full (counted, never silent). */
JNIEXPORT jlong JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeKernelsDropped(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return (jlong)pcs_kernels_dropped();
}

/*
 * The CRC CUPTI gives a cubin (cuptiGetCubinCrc: the cubinCrc its PC records carry for that module), into
 * crcOut[0]. Runs without a GPU. Returns 0, or a CUPTI error code with message[0] saying which call.
 */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeCubinCrc(
        JNIEnv *env, jclass cls, jbyteArray cubin, jlongArray crcOut, jobjectArray messageOut) {
    (void)cls;
    jsize n = (*env)->GetArrayLength(env, cubin);
    jbyte *bytes = (*env)->GetByteArrayElements(env, cubin, NULL);
    if (bytes == NULL) {
        return -1; /* OutOfMemoryError is pending in Java */
    }
    CUpti_GetCubinCrcParams p = {0};
    p.size = CUpti_GetCubinCrcParamsSize;
    p.cubinSize = (size_t)n;
    p.cubin = bytes;
    CUptiResult r = pcs_cubin_crc(&p);
    (*env)->ReleaseByteArrayElements(env, cubin, bytes, JNI_ABORT);
    if (r != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiGetCubinCrc", r);
    }
    jlong crc = (jlong)p.cubinCrc;
    (*env)->SetLongArrayRegion(env, crcOut, 0, 1, &crc);
    return 0;
}
