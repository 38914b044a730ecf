/*
 * The CUPTI PC-sampling session (pcsession.h): KERNEL_SERIALIZED (or CONTINUOUS) collection with start/stop
 * control, and kernel activity records. Facts it follows: shared/reference/cupti-pc-sampling.md.
 *
 *  - every CUPTI call goes through one recursive lock (two threads calling CUPTI at once deadlocked,
 *    perf-agent #99); after the guarded wrappers below the raw names are poisoned, so an unguarded call does
 *    not compile. The buffer-completed callback's record walk is the one exception (CUPTI calls it);
 *  - activity callbacks and CONCURRENT_KERNEL are enabled once per process, before any PC-sampling Enable
 *    (after it CUPTI answers CUPTI_ERROR_NOT_COMPATIBLE);
 *  - every PC-sampling call comes after Enable on that context (the stall-reason queries are refused before);
 *  - one configuration lives for the session: the attribute array, the stall-reason tables, the buffer handed
 *    to CUPTI (g_cfg) and the separate buffer GetData writes (g_out) are static, kept until the next configure;
 *  - a drain is bounded (PCS_MAX_ROUNDS), resets the output counters and the stall slots before each call and
 *    ends when a call returns no PCs; functionName is CUPTI's, one pointer shared by every record of a function
 *    (across calls too): it is read, never freed here;
 *  - every failure after Enable disables.
 */
#define _GNU_SOURCE
#include "pcsession.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ACTIVITY_BUFFER_BYTES ((size_t)1 << 20)
#define MAX_KERNELS 65536
#define N_ATTRIBUTES 6

int pcs_variant_same_buffer;
int pcs_variant_zero_stall_slots;

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

CUptiResult pcs_version(uint32_t *v) { return GUARDED(cuptiGetVersion(v)); }
CUptiResult pcs_timestamp(uint64_t *t) { return GUARDED(cuptiGetTimestamp(t)); }
CUptiResult pcs_cubin_crc(CUpti_GetCubinCrcParams *p) { return GUARDED(cuptiGetCubinCrc(p)); }
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
static CUptiResult g_flush(uint32_t flag) { return GUARDED(cuptiActivityFlushAll(flag)); }

#pragma GCC poison cuptiGetVersion cuptiGetTimestamp cuptiGetResultString cuptiPCSamplingGetNumStallReasons
#pragma GCC poison cuptiPCSamplingGetStallReasons cuptiPCSamplingSetConfigurationAttribute cuptiPCSamplingEnable
#pragma GCC poison cuptiPCSamplingDisable cuptiPCSamplingStart cuptiPCSamplingStop cuptiPCSamplingGetData
#pragma GCC poison cuptiActivityRegisterCallbacks cuptiActivityEnable cuptiActivityFlushAll cuptiGetCubinCrc

const char *pcs_result_string(CUptiResult r) {
    const char *s = NULL;
    if (g_result_string(r, &s) != CUPTI_SUCCESS || s == NULL) {
        s = "unknown CUPTI result";
    }
    return s;
}

/* ---- kernel activity: kept by the buffer-completed callback, taken by pcs_take_kernels ---------- */
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
    /* not under g_cupti: CUPTI calls this, possibly while a guarded flush waits for it */
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

size_t pcs_take_kernels(pcs_kernel_fn on_kernel, void *arg) {
    pthread_mutex_lock(&g_kernels_lock);
    size_t n = g_kernel_count;
    for (size_t i = 0; i < n; i++) {
        kernel_rec *k = &g_kernels[i];
        if (on_kernel != NULL) {
            on_kernel(arg, k->name ? k->name : "?", k->start, k->end, k->correlation, k->graph);
        }
        free(k->name); /* the shim's own copy (strdup above) */
        k->name = NULL;
    }
    g_kernel_count = 0;
    pthread_mutex_unlock(&g_kernels_lock);
    return n;
}

uint64_t pcs_kernels_dropped(void) {
    pthread_mutex_lock(&g_kernels_lock);
    uint64_t d = g_kernels_dropped;
    pthread_mutex_unlock(&g_kernels_lock);
    return d;
}

static int g_activity_done;
static CUptiResult g_activity_result;
static const char *g_activity_what;

CUptiResult pcs_init_activity(const char **what) {
    pthread_once(&g_once, init_lock);
    pthread_mutex_lock(&g_cupti);
    if (!g_activity_done) {
        g_activity_done = 1;
        g_activity_what = "cuptiActivityRegisterCallbacks";
        g_activity_result = g_register(buffer_requested, buffer_completed);
        if (g_activity_result == CUPTI_SUCCESS) {
            g_activity_what = "cuptiActivityEnable(CONCURRENT_KERNEL)";
            g_activity_result = g_activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        }
    }
    CUptiResult r = g_activity_result;
    *what = g_activity_what;
    pthread_mutex_unlock(&g_cupti);
    return r;
}

CUptiResult pcs_flush_activity(int forced, const char **what) {
    *what = forced ? "cuptiActivityFlushAll(FORCED)" : "cuptiActivityFlushAll";
    return g_flush(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

/* ---- PC sampling state: lives from pcs_configure to the next pcs_configure ------------------------- */
static CUpti_PCSamplingData g_cfg;   /* handed to CUPTI as SAMPLING_DATA_BUFFER */
static CUpti_PCSamplingData g_out;   /* what GetData writes */
static CUpti_PCSamplingConfigurationInfo g_info[N_ATTRIBUTES];
static size_t g_n;
static uint32_t *g_index;
static char **g_names;
static int g_enabled;

int pcs_enabled(void) { return g_enabled; }
size_t pcs_num_stall_reasons(void) { return g_n; }
uint32_t pcs_stall_reason_index(size_t i) { return g_index[i]; }
const char *pcs_stall_reason_name(size_t i) { return g_names[i]; }
const CUpti_PCSamplingData *pcs_config_buffer(void) { return &g_cfg; }
size_t pcs_attribute_count(void) { return N_ATTRIBUTES; }
const CUpti_PCSamplingConfigurationInfo *pcs_attribute(size_t i) { return &g_info[i]; }

static void free_data(CUpti_PCSamplingData *d) {
    if (d->pPcData != NULL) {
        for (size_t i = 0; i < d->collectNumPcs; i++) {
            free(d->pPcData[i].stallReason);
        }
        free(d->pPcData);
    }
    memset(d, 0, sizeof *d);
}

static int alloc_data(CUpti_PCSamplingData *d, size_t n) {
    memset(d, 0, sizeof *d);
    d->size = sizeof(CUpti_PCSamplingData);
    d->collectNumPcs = PCS_BUFFER_PCS;
    d->pPcData = calloc(PCS_BUFFER_PCS, sizeof(CUpti_PCSamplingPCData));
    if (d->pPcData == NULL) {
        return 0;
    }
    for (size_t i = 0; i < PCS_BUFFER_PCS; i++) {
        d->pPcData[i].size = sizeof(CUpti_PCSamplingPCData);
        d->pPcData[i].stallReasonCount = n;
        d->pPcData[i].stallReason = calloc(n ? n : 1, sizeof(CUpti_PCSamplingStallReason));
        if (d->pPcData[i].stallReason == NULL) {
            return 0;
        }
    }
    return 1;
}

static void free_tables(void) {
    for (size_t i = 0; i < g_n && g_names != NULL; i++) {
        free(g_names[i]);
    }
    free(g_names);
    free(g_index);
    g_names = NULL;
    g_index = NULL;
    g_n = 0;
}

static CUptiResult disable_after(CUcontext ctx, CUptiResult r) {
    CUpti_PCSamplingDisableParams dp = {0};
    dp.size = CUpti_PCSamplingDisableParamsSize;
    dp.ctx = ctx;
    g_disable(&dp);
    g_enabled = 0;
    return r;
}

CUptiResult pcs_configure(CUcontext ctx, CUpti_PCSamplingCollectionMode mode, const char **what) {
    CUptiResult r;
    CUpti_PCSamplingEnableParams ep = {0};
    ep.size = CUpti_PCSamplingEnableParamsSize;
    ep.ctx = ctx;
    *what = "cuptiPCSamplingEnable";
    if ((r = g_enable(&ep)) != CUPTI_SUCCESS) {
        return r;
    }
    g_enabled = 1;
    free_tables();
    size_t n = 0;
    CUpti_PCSamplingGetNumStallReasonsParams np = {0};
    np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    np.ctx = ctx;
    np.numStallReasons = &n;
    *what = "cuptiPCSamplingGetNumStallReasons";
    if ((r = g_num_stall(&np)) != CUPTI_SUCCESS) {
        return disable_after(ctx, r);
    }
    g_index = calloc(n ? n : 1, sizeof(uint32_t));
    g_names = calloc(n ? n : 1, sizeof(char *));
    *what = "allocating the stall-reason tables";
    if (g_index == NULL || g_names == NULL) {
        return disable_after(ctx, CUPTI_ERROR_OUT_OF_MEMORY);
    }
    g_n = n;
    for (size_t i = 0; i < n; i++) {
        g_names[i] = calloc(CUPTI_STALL_REASON_STRING_SIZE, 1);
        if (g_names[i] == NULL) {
            return disable_after(ctx, CUPTI_ERROR_OUT_OF_MEMORY);
        }
    }
    CUpti_PCSamplingGetStallReasonsParams sp = {0};
    sp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    sp.ctx = ctx;
    sp.numStallReasons = n;
    sp.stallReasonIndex = g_index;
    sp.stallReasons = g_names;
    *what = "cuptiPCSamplingGetStallReasons";
    if ((r = g_stall(&sp)) != CUPTI_SUCCESS) {
        return disable_after(ctx, r);
    }
    free_data(&g_cfg);
    free_data(&g_out);
    *what = "allocating the PC buffers";
    if (!alloc_data(&g_cfg, n) || !alloc_data(&g_out, n)) {
        return disable_after(ctx, CUPTI_ERROR_OUT_OF_MEMORY);
    }
    memset(g_info, 0, sizeof g_info);
    g_info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    g_info[0].attributeData.collectionModeData.collectionMode = mode;
    g_info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
    g_info[1].attributeData.enableStartStopControlData.enableStartStopControl = 1;
    g_info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
    g_info[2].attributeData.scratchBufferSizeData.scratchBufferSize = PCS_SCRATCH_BYTES;
    g_info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
    g_info[3].attributeData.hardwareBufferSizeData.hardwareBufferSize = PCS_HARDWARE_BYTES;
    g_info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
    g_info[4].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    g_info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    g_info[5].attributeData.samplingDataBufferData.samplingDataBuffer = &g_cfg;
    CUpti_PCSamplingConfigurationInfoParams cp = {0};
    cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    cp.ctx = ctx;
    cp.numAttributes = N_ATTRIBUTES;
    cp.pPCSamplingConfigurationInfo = g_info;
    *what = "cuptiPCSamplingSetConfigurationAttribute";
    if ((r = g_set_config(&cp)) != CUPTI_SUCCESS) {
        return disable_after(ctx, r);
    }
    static const char *const names[N_ATTRIBUTES] = {
        "cuptiPCSamplingSetConfigurationAttribute(COLLECTION_MODE)",
        "cuptiPCSamplingSetConfigurationAttribute(ENABLE_START_STOP_CONTROL)",
        "cuptiPCSamplingSetConfigurationAttribute(SCRATCH_BUFFER_SIZE)",
        "cuptiPCSamplingSetConfigurationAttribute(HARDWARE_BUFFER_SIZE)",
        "cuptiPCSamplingSetConfigurationAttribute(OUTPUT_DATA_FORMAT)",
        "cuptiPCSamplingSetConfigurationAttribute(SAMPLING_DATA_BUFFER)",
    };
    for (size_t i = 0; i < N_ATTRIBUTES; i++) {
        if (g_info[i].attributeStatus != CUPTI_SUCCESS) {
            *what = names[i];
            return disable_after(ctx, g_info[i].attributeStatus);
        }
    }
    *what = "";
    return CUPTI_SUCCESS;
}

CUptiResult pcs_start(CUcontext ctx, const char **what) {
    CUpti_PCSamplingStartParams p = {0};
    p.size = CUpti_PCSamplingStartParamsSize;
    p.ctx = ctx;
    *what = "cuptiPCSamplingStart";
    return g_start(&p);
}

CUptiResult pcs_stop(CUcontext ctx, const char **what) {
    CUpti_PCSamplingStopParams p = {0};
    p.size = CUpti_PCSamplingStopParamsSize;
    p.ctx = ctx;
    *what = "cuptiPCSamplingStop";
    return g_stop(&p);
}

CUptiResult pcs_drain(CUcontext ctx, pcs_pc_fn on_pc, pcs_round_fn on_round, void *arg, pcs_drain_stats *st,
                      const char **what) {
    memset(st, 0, sizeof *st);
    *what = "cuptiPCSamplingGetData";
    if (!g_enabled || g_out.pPcData == NULL) {
        return CUPTI_SUCCESS;
    }
    CUpti_PCSamplingData *d = pcs_variant_same_buffer ? &g_cfg : &g_out;
    for (;;) {
        if (st->rounds == PCS_MAX_ROUNDS) {
            st->capped = 1;
            return CUPTI_SUCCESS;
        }
        d->totalNumPcs = 0;
        d->remainingNumPcs = 0;
        d->totalSamples = 0;
        d->droppedSamples = 0;
        d->nonUsrKernelsTotalSamples = 0;
        d->hardwareBufferFull = 0;
        for (size_t i = 0; i < d->collectNumPcs; i++) {
            d->pPcData[i].stallReasonCount = pcs_variant_zero_stall_slots ? 0 : g_n;
            d->pPcData[i].functionName = NULL; /* forgotten, not freed: CUPTI shares it between records */
        }
        CUpti_PCSamplingGetDataParams gp = {0};
        gp.size = CUpti_PCSamplingGetDataParamsSize;
        gp.ctx = ctx;
        gp.pcSamplingData = d;
        CUptiResult r = g_get_data(&gp);
        st->rounds++;
        if (on_round != NULL) {
            on_round(arg, st->rounds, r, d);
        }
        if (r == CUPTI_ERROR_OUT_OF_MEMORY || (r == CUPTI_SUCCESS && d->hardwareBufferFull)) {
            st->buffer_full = 1;
            *what = "cuptiPCSamplingGetData (hardware buffer full)";
            return CUPTI_ERROR_OUT_OF_MEMORY;
        }
        if (r != CUPTI_SUCCESS) {
            return r;
        }
        size_t total = d->totalNumPcs < d->collectNumPcs ? d->totalNumPcs : d->collectNumPcs;
        for (size_t i = 0; i < total && on_pc != NULL; i++) {
            on_pc(arg, &d->pPcData[i]);
        }
        st->pcs += total;
        if (d->remainingNumPcs == 0 || total == 0) {
            return CUPTI_SUCCESS; /* nothing left, or no progress */
        }
    }
}

CUptiResult pcs_disable(CUcontext ctx, const char **what) {
    *what = "cuptiPCSamplingDisable";
    if (!g_enabled) {
        return CUPTI_SUCCESS;
    }
    CUpti_PCSamplingDisableParams dp = {0};
    dp.size = CUpti_PCSamplingDisableParamsSize;
    dp.ctx = ctx;
    CUptiResult r = g_disable(&dp);
    g_enabled = 0;
    return r;
}
