/*
 * replay-farm's CUPTI shim (issue 9, seed 000 "Tier A"): PC sampling in KERNEL_SERIALIZED mode with
 * start/stop control, and kernel activity records, for org.replayfarm.gpunode.sampling.CuptiShim.
 *
 * Rules it keeps (facts in shared/reference/gpu.md):
 *  - every CUPTI call goes through one recursive lock (two threads calling CUPTI at once deadlocked,
 *    perf-agent #99); after the guarded wrappers below, the raw names are poisoned, so an unguarded call
 *    does not compile. The buffer-completed callback's record walk is the one exception (CUPTI calls it).
 *  - start and stop are called by Java on the launching thread, never from a timer thread (#101);
 *  - the PC data is drained (cuptiPCSamplingGetData) after every stop: without it two instructions can
 *    share one PC identity;
 *  - stall-reason names are read at run time: indices differ per device and driver.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cupti.h>
#include <cupti_activity.h>
#include <cupti_pcsampling.h>

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

#define PC_BUFFER_PCS 1024                       /* PCs per GetData call (as parcagpu) */
#define SCRATCH_BYTES ((size_t)16 << 20)         /* 16 MiB */
#define HARDWARE_BYTES ((size_t)128 << 20)       /* 128 MiB */
#define ACTIVITY_BUFFER_BYTES ((size_t)1 << 20)
#define MAX_KERNELS 65536

/* ---- the one lock around CUPTI --------------------------------------------------------------- */
static pthread_mutex_t g_cupti;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_lock(void) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_cupti, &a);
}

#define GUARDED(call) ({ pthread_once(&g_once, init_lock); pthread_mutex_lock(&g_cupti); \
        CUptiResult r_ = (call); pthread_mutex_unlock(&g_cupti); r_; })

static CUptiResult g_get_version(uint32_t *v) { return GUARDED(cuptiGetVersion(v)); }
static CUptiResult g_get_timestamp(uint64_t *t) { return GUARDED(cuptiGetTimestamp(t)); }
static CUptiResult g_result_string(CUptiResult r, const char **s) { return GUARDED(cuptiGetResultString(r, s)); }
static CUptiResult g_num_stall(CUpti_PCSamplingGetNumStallReasonsParams *p) { return GUARDED(cuptiPCSamplingGetNumStallReasons(p)); }
static CUptiResult g_stall(CUpti_PCSamplingGetStallReasonsParams *p) { return GUARDED(cuptiPCSamplingGetStallReasons(p)); }
static CUptiResult g_set_config(CUpti_PCSamplingConfigurationInfoParams *p) { return GUARDED(cuptiPCSamplingSetConfigurationAttribute(p)); }
static CUptiResult g_enable(CUpti_PCSamplingEnableParams *p) { return GUARDED(cuptiPCSamplingEnable(p)); }
static CUptiResult g_disable(CUpti_PCSamplingDisableParams *p) { return GUARDED(cuptiPCSamplingDisable(p)); }
static CUptiResult g_start(CUpti_PCSamplingStartParams *p) { return GUARDED(cuptiPCSamplingStart(p)); }
static CUptiResult g_stop(CUpti_PCSamplingStopParams *p) { return GUARDED(cuptiPCSamplingStop(p)); }
static CUptiResult g_get_data(CUpti_PCSamplingGetDataParams *p) { return GUARDED(cuptiPCSamplingGetData(p)); }
static CUptiResult g_register(CUpti_BuffersCallbackRequestFunc a, CUpti_BuffersCallbackCompleteFunc b) {
    return GUARDED(cuptiActivityRegisterCallbacks(a, b));
}
static CUptiResult g_activity_enable(CUpti_ActivityKind k) { return GUARDED(cuptiActivityEnable(k)); }
static CUptiResult g_flush(void) { return GUARDED(cuptiActivityFlushAll(0)); }
static CUptiResult g_cubin_crc(CUpti_GetCubinCrcParams *p) { return GUARDED(cuptiGetCubinCrc(p)); }

#pragma GCC poison cuptiGetVersion cuptiGetTimestamp cuptiGetResultString cuptiPCSamplingGetNumStallReasons
#pragma GCC poison cuptiPCSamplingGetStallReasons cuptiPCSamplingSetConfigurationAttribute cuptiPCSamplingEnable
#pragma GCC poison cuptiPCSamplingDisable cuptiPCSamplingStart cuptiPCSamplingStop cuptiPCSamplingGetData
#pragma GCC poison cuptiActivityRegisterCallbacks cuptiActivityEnable cuptiActivityFlushAll cuptiGetCubinCrc

/* ---- kernel activity: kept by the buffer-completed callback, handed to Java on drain ----------- */
typedef struct {
    uint64_t start, end;
    uint32_t correlation, graph;
    char *name;
} kernel_rec;

static pthread_mutex_t g_kernels_lock = PTHREAD_MUTEX_INITIALIZER; /* the queue only, never around CUPTI */
static kernel_rec g_kernels[MAX_KERNELS];
static size_t g_kernel_count;
static uint64_t g_kernels_dropped;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = aligned_alloc(8, ACTIVITY_BUFFER_BYTES);
    *size = *buffer ? ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    /* not under g_cupti: CUPTI calls this, possibly while a guarded flush waits for it (gpu.md) */
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
            continue;
        }
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
        pthread_mutex_lock(&g_kernels_lock);
        if (g_kernel_count < MAX_KERNELS) {
            kernel_rec *r = &g_kernels[g_kernel_count++];
            r->start = k->start;
            r->end = k->end;
            r->correlation = k->correlationId;
            r->graph = k->graphId;
            r->name = k->name ? strdup(k->name) : NULL;
        } else {
            g_kernels_dropped++;
        }
        pthread_mutex_unlock(&g_kernels_lock);
    }
    free(buffer);
}

/* ---- PC sampling state ------------------------------------------------------------------------- */
static CUpti_PCSamplingData g_data;
static size_t g_num_stall_reasons;

static jint fail(JNIEnv *env, jobjectArray messageOut, const char *what, CUptiResult r) {
    const char *s = NULL;
    if (g_result_string(r, &s) != CUPTI_SUCCESS || s == NULL) {
        s = "unknown CUPTI result";
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s: CUPTI error %d (%s)", what, (int)r, s);
    if (messageOut != NULL && (*env)->GetArrayLength(env, messageOut) > 0) {
        (*env)->SetObjectArrayElement(env, messageOut, 0, (*env)->NewStringUTF(env, buf));
    }
    return (jint)r;
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeVersion(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    uint32_t v = 0;
    return g_get_version(&v) == CUPTI_SUCCESS ? (jint)v : -1;
}

JNIEXPORT jlong JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeTimestamp(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    uint64_t t = 0;
    return g_get_timestamp(&t) == CUPTI_SUCCESS ? (jlong)t : -1;
}

/*
 * Configures PC sampling on ctx: collectionMode (1 continuous, 2 kernel-serialized), start/stop control,
 * buffers, parsed output; enables it; enables kernel activity. Returns 0 and fills names[0] with a
 * String[] of stall-reason names by index, or a CUPTI error code with message[0] saying which call.
 */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeConfigure(
        JNIEnv *env, jclass cls, jlong jctx, jint collectionMode, jobjectArray namesOut, jobjectArray messageOut) {
    (void)cls;
    CUcontext ctx = (CUcontext)(uintptr_t)jctx;
    CUptiResult r;
    size_t n = 0;
    CUpti_PCSamplingGetNumStallReasonsParams np = {0};
    np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    np.ctx = ctx;
    np.numStallReasons = &n;
    if ((r = g_num_stall(&np)) != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiPCSamplingGetNumStallReasons", r);
    }
    uint32_t *index = calloc(n ? n : 1, sizeof(uint32_t));
    char **names = calloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        names[i] = calloc(CUPTI_STALL_REASON_STRING_SIZE, 1);
    }
    CUpti_PCSamplingGetStallReasonsParams sp = {0};
    sp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    sp.ctx = ctx;
    sp.numStallReasons = n;
    sp.stallReasonIndex = index;
    sp.stallReasons = names;
    if ((r = g_stall(&sp)) != CUPTI_SUCCESS) {
        for (size_t i = 0; i < n; i++) free(names[i]);
        free(names);
        free(index);
        return fail(env, messageOut, "cuptiPCSamplingGetStallReasons", r);
    }
    /* Java indexes names by the index CUPTI puts in PC records */
    uint32_t max_index = 0;
    for (size_t i = 0; i < n; i++) {
        if (index[i] > max_index) max_index = index[i];
    }
    jobjectArray arr = (*env)->NewObjectArray(env, (jsize)(n ? max_index + 1 : 0),
                                              (*env)->FindClass(env, "java/lang/String"), NULL);
    for (size_t i = 0; i < n; i++) {
        (*env)->SetObjectArrayElement(env, arr, (jsize)index[i], (*env)->NewStringUTF(env, names[i]));
        free(names[i]);
    }
    free(names);
    free(index);
    (*env)->SetObjectArrayElement(env, namesOut, 0, arr);
    g_num_stall_reasons = n;

    /* the data buffer the caller owns: PC entries, each with a stall-reason array */
    memset(&g_data, 0, sizeof g_data);
    g_data.size = sizeof(CUpti_PCSamplingData);
    g_data.collectNumPcs = PC_BUFFER_PCS;
    g_data.pPcData = calloc(PC_BUFFER_PCS, sizeof(CUpti_PCSamplingPCData));
    for (size_t i = 0; i < PC_BUFFER_PCS; i++) {
        g_data.pPcData[i].size = sizeof(CUpti_PCSamplingPCData);
        g_data.pPcData[i].stallReason = calloc(n ? n : 1, sizeof(CUpti_PCSamplingStallReason));
    }

    CUpti_PCSamplingConfigurationInfo info[6];
    memset(info, 0, sizeof info);
    info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    info[0].attributeData.collectionModeData.collectionMode = (CUpti_PCSamplingCollectionMode)collectionMode;
    info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
    info[1].attributeData.enableStartStopControlData.enableStartStopControl = 1;
    info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
    info[2].attributeData.scratchBufferSizeData.scratchBufferSize = SCRATCH_BYTES;
    info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
    info[3].attributeData.hardwareBufferSizeData.hardwareBufferSize = HARDWARE_BYTES;
    info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
    info[4].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    info[5].attributeData.samplingDataBufferData.samplingDataBuffer = &g_data;

    CUpti_PCSamplingEnableParams ep = {0};
    ep.size = CUpti_PCSamplingEnableParamsSize;
    ep.ctx = ctx;
    if ((r = g_enable(&ep)) != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiPCSamplingEnable", r);
    }
    CUpti_PCSamplingConfigurationInfoParams cp = {0};
    cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    cp.ctx = ctx;
    cp.numAttributes = sizeof info / sizeof info[0];
    cp.pPCSamplingConfigurationInfo = info;
    if ((r = g_set_config(&cp)) != CUPTI_SUCCESS) {
        CUpti_PCSamplingDisableParams dp = {0};
        dp.size = CUpti_PCSamplingDisableParamsSize;
        dp.ctx = ctx;
        g_disable(&dp);
        return fail(env, messageOut, "cuptiPCSamplingSetConfigurationAttribute", r);
    }
    if ((r = g_register(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiActivityRegisterCallbacks", r);
    }
    if ((r = g_activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    }
    return 0;
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeStart(
        JNIEnv *env, jclass cls, jlong jctx, jobjectArray messageOut) {
    (void)cls;
    CUpti_PCSamplingStartParams p = {0};
    p.size = CUpti_PCSamplingStartParamsSize;
    p.ctx = (CUcontext)(uintptr_t)jctx;
    CUptiResult r = g_start(&p);
    return r == CUPTI_SUCCESS ? 0 : fail(env, messageOut, "cuptiPCSamplingStart", r);
}

JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeStop(
        JNIEnv *env, jclass cls, jlong jctx, jobjectArray messageOut) {
    (void)cls;
    CUpti_PCSamplingStopParams p = {0};
    p.size = CUpti_PCSamplingStopParamsSize;
    p.ctx = (CUcontext)(uintptr_t)jctx;
    CUptiResult r = g_stop(&p);
    return r == CUPTI_SUCCESS ? 0 : fail(env, messageOut, "cuptiPCSamplingStop", r);
}

/*
 * Drains PC data (GetData until nothing remains) and the kernel activity (flush), calling
 * sink.pc(String function, long cubinCrc, long pcOffset, int stallReasonIndex, int samples, int correlationId) per
 * (PC, stall reason) with samples and sink.kernel(String name, long start, long end, int correlationId,
 * int graphId) per kernel record.
 */
JNIEXPORT jint JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeDrain(
        JNIEnv *env, jclass cls, jlong jctx, jobject sink, jobjectArray messageOut) {
    (void)cls;
    jclass sc = (*env)->GetObjectClass(env, sink);
    jmethodID onPc = (*env)->GetMethodID(env, sc, "pc", "(Ljava/lang/String;JJIII)V");
    jmethodID onKernel = (*env)->GetMethodID(env, sc, "kernel", "(Ljava/lang/String;JJII)V");
    if (onPc == NULL || onKernel == NULL) {
        return -1; /* NoSuchMethodError is pending in Java */
    }
    CUptiResult r;
    if (g_data.pPcData != NULL) {
        do {
            CUpti_PCSamplingGetDataParams gp = {0};
            gp.size = CUpti_PCSamplingGetDataParamsSize;
            gp.ctx = (CUcontext)(uintptr_t)jctx;
            gp.pcSamplingData = &g_data;
            if ((r = g_get_data(&gp)) != CUPTI_SUCCESS) {
                return fail(env, messageOut, "cuptiPCSamplingGetData", r);
            }
            for (size_t i = 0; i < g_data.totalNumPcs; i++) {
                CUpti_PCSamplingPCData *pc = &g_data.pPcData[i];
                jstring fn = (*env)->NewStringUTF(env, pc->functionName ? pc->functionName : "?");
                for (size_t s = 0; s < pc->stallReasonCount; s++) {
                    CUpti_PCSamplingStallReason *sr = &pc->stallReason[s];
                    if (sr->samples > 0) {
                        (*env)->CallVoidMethod(env, sink, onPc, fn, (jlong)pc->cubinCrc, (jlong)pc->pcOffset,
                                               (jint)sr->pcSamplingStallReasonIndex, (jint)sr->samples,
                                               (jint)pc->correlationId);
                    }
                }
                (*env)->DeleteLocalRef(env, fn);
                free(pc->functionName); /* the caller owns it (gpu.md) */
                pc->functionName = NULL;
                pc->stallReasonCount = 0;
                if ((*env)->ExceptionCheck(env)) {
                    return -1;
                }
            }
        } while (g_data.remainingNumPcs > 0);
    }
    if ((r = g_flush()) != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiActivityFlushAll", r);
    }
    pthread_mutex_lock(&g_kernels_lock);
    for (size_t i = 0; i < g_kernel_count; i++) {
        kernel_rec *k = &g_kernels[i];
        jstring name = (*env)->NewStringUTF(env, k->name ? k->name : "?");
        (*env)->CallVoidMethod(env, sink, onKernel, name, (jlong)k->start, (jlong)k->end, (jint)k->correlation,
                               (jint)k->graph);
        (*env)->DeleteLocalRef(env, name);
        free(k->name);
    }
    g_kernel_count = 0;
    pthread_mutex_unlock(&g_kernels_lock);
    return (*env)->ExceptionCheck(env) ? -1 : 0;
}

/* Kernel records lost because the queue was full (counted, never silent). */
JNIEXPORT jlong JNICALL Java_org_replayfarm_gpunode_sampling_CuptiShim_nativeKernelsDropped(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    pthread_mutex_lock(&g_kernels_lock);
    jlong d = (jlong)g_kernels_dropped;
    pthread_mutex_unlock(&g_kernels_lock);
    return d;
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
    CUptiResult r = g_cubin_crc(&p);
    (*env)->ReleaseByteArrayElements(env, cubin, bytes, JNI_ABORT);
    if (r != CUPTI_SUCCESS) {
        return fail(env, messageOut, "cuptiGetCubinCrc", r);
    }
    jlong crc = (jlong)p.cubinCrc;
    (*env)->SetLongArrayRegion(env, crcOut, 0, 1, &crc);
    return 0;
}
