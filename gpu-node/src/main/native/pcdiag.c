/*
 * pcdiag: the CUPTI PC-sampling diagnostic gpu-check.sh runs first. One case per process (CUPTI state is
 * process-wide), each under `timeout` there and alarm() here, every drain capped at PCS_MAX_ROUNDS, stdout
 * line-buffered, so a hang costs one case and still prints. Facts and cases:
 * shared/reference/cupti-pc-sampling.md §5.
 *
 * Usage: pcdiag CASE SPIN_PTX
 *   support    cuptiProfilerDeviceSupported(PC_SAMPLING) flags only
 *   ref        the reference order: activity, context, Enable, stall reasons, one configuration, module,
 *              3 bursts of (cuCtxSynchronize, Start, 20 x (launch, cuCtxSynchronize), Stop, drain), forced
 *              activity flush, Disable
 *   armed      ref, and a drain after every kernel while started
 *   modfirst   ref, with the module loaded (and the first CUPTI call made) before Enable
 *   samebuf    ref, with GetData into the configuration buffer
 *   zerocount  ref, with every stall slot count zeroed before each GetData
 *   actafter   ref, with kernel activity enabled after Enable (expected: CUPTI_ERROR_NOT_COMPATIBLE)
 *   shim       the shim's own steps as the node drives them: primary context, activity, configuration,
 *              module, bursts; then Stop/drain/Disable, a primary-context reset, configuration and module
 *              again on the new context, one more burst, and Disable at exit
 * The last line is "PCDIAG <case> PASS|FAIL ..." with the figures.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cupti_profiler_target.h>
#include "pcsession.h"

#define BURSTS 3
#define LAUNCHES 20
#define BLOCKS 264
#define THREADS 256
#define ITERS 100000
#define MAX_NAMES 64
#define MAX_CORR 4096

typedef int CUres;
static struct {
    CUres (*init)(unsigned);
    CUres (*driver_version)(int *);
    CUres (*device_get)(CUdevice *, int);
    CUres (*device_name)(char *, int, CUdevice);
    CUres (*device_attr)(int *, int, CUdevice);
    CUres (*retain)(CUcontext *, CUdevice);
    CUres (*release)(CUdevice);
    CUres (*reset)(CUdevice);
    CUres (*set_current)(CUcontext);
    CUres (*load_data)(CUmodule *, const void *);
    CUres (*get_function)(CUfunction *, CUmodule, const char *);
    CUres (*mem_alloc)(CUdeviceptr *, size_t);
    CUres (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                    void **, void **);
    CUres (*sync)(void);
} cu;

static const char *g_case;
static char *g_ptx;
static CUdevice g_dev;
static CUcontext g_ctx;
static CUfunction g_fn;
static CUdeviceptr g_buf;
static struct timespec g_t0;

/* figures for the summary */
static size_t g_pcs, g_pairs, g_capped_drains, g_buffer_full;
static unsigned long long g_samples;
static const char *g_names[MAX_NAMES];
static size_t g_name_count, g_name_records;
static uint32_t g_pc_corr[MAX_CORR];
static size_t g_pc_corr_n;
static uint32_t g_kernel_corr[MAX_CORR];
static size_t g_kernels;
static int g_failed;

static double elapsed(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - g_t0.tv_sec) + (double)(t.tv_nsec - g_t0.tv_nsec) / 1e9;
}

static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "PCDIAG timeout: alarm after 25 s (a call above did not return)\n";
    ssize_t w = write(1, m, sizeof m - 1);
    (void)w;
    _exit(124);
}

static int cu_check(const char *what, CUres r) {
    printf("  %-36s -> %d\n", what, r);
    if (r != 0) g_failed = 1;
    return r == 0;
}

static int cupti_check(const char *what, CUptiResult r) {
    printf("  %-36s -> %d (%s)\n", what, (int)r, r == CUPTI_SUCCESS ? "ok" : pcs_result_string(r));
    if (r != CUPTI_SUCCESS) g_failed = 1;
    return r == CUPTI_SUCCESS;
}

#define SYM(field, name) do { *(void **)&cu.field = dlsym(h, name); \
        if (cu.field == NULL) { printf("PCDIAG %s FAIL: libcuda lacks %s\n", g_case, name); exit(2); } } while (0)

static void load_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        printf("PCDIAG %s FAIL: no NVIDIA driver (dlopen libcuda.so.1: %s)\n", g_case, dlerror());
        exit(2);
    }
    SYM(init, "cuInit");
    SYM(driver_version, "cuDriverGetVersion");
    SYM(device_get, "cuDeviceGet");
    SYM(device_name, "cuDeviceGetName");
    SYM(device_attr, "cuDeviceGetAttribute");
    SYM(retain, "cuDevicePrimaryCtxRetain");
    SYM(release, "cuDevicePrimaryCtxRelease_v2");
    SYM(reset, "cuDevicePrimaryCtxReset_v2");
    SYM(set_current, "cuCtxSetCurrent");
    SYM(load_data, "cuModuleLoadData");
    SYM(get_function, "cuModuleGetFunction");
    SYM(mem_alloc, "cuMemAlloc_v2");
    SYM(launch, "cuLaunchKernel");
    SYM(sync, "cuCtxSynchronize");
}

static void machine(void) {
    int drv = 0, major = 0, minor = 0;
    uint32_t v = 0;
    char name[256] = "?";
    cu.driver_version(&drv);
    pcs_version(&v);
    cu.device_name(name, sizeof name, g_dev);
    cu.device_attr(&major, 75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */, g_dev);
    cu.device_attr(&minor, 76 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */, g_dev);
    printf("machine: driver %d, CUPTI API %u, %s, compute capability %d.%d\n", drv, v, name, major, minor);
}

static int context(void) {
    return cu_check("cuDevicePrimaryCtxRetain", cu.retain(&g_ctx, g_dev))
        && cu_check("cuCtxSetCurrent", cu.set_current(g_ctx));
}

static int module(void) {
    CUmodule m;
    return cu_check("cuModuleLoadData(spin.ptx)", cu.load_data(&m, g_ptx))
        && cu_check("cuModuleGetFunction(spin)", cu.get_function(&g_fn, m, "spin"))
        && (g_buf != 0 || cu_check("cuMemAlloc", cu.mem_alloc(&g_buf, (size_t)BLOCKS * THREADS * 4)));
}

static int activity(void) {
    const char *what;
    CUptiResult r = pcs_init_activity(&what);
    return cupti_check(what, r);
}

static void print_data(const char *label, const CUpti_PCSamplingData *d) {
    printf("  %s: totalNumPcs %zu remainingNumPcs %zu rangeId %llu totalSamples %llu droppedSamples %llu "
           "nonUsrKernelsTotalSamples %llu hardwareBufferFull %u\n", label, d->totalNumPcs, d->remainingNumPcs,
           (unsigned long long)d->rangeId, (unsigned long long)d->totalSamples,
           (unsigned long long)d->droppedSamples, (unsigned long long)d->nonUsrKernelsTotalSamples,
           (unsigned)d->hardwareBufferFull);
}

static void configure(void) {
    const char *what;
    CUptiResult r = pcs_configure(g_ctx, CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED, &what);
    printf("  pcs_configure -> %d (%s)%s%s\n", (int)r, pcs_result_string(r), r ? " at " : "", r ? what : "");
    if (r != CUPTI_SUCCESS) {
        g_failed = 1;
        return;
    }
    size_t n = pcs_num_stall_reasons();
    printf("  stall reasons: %zu\n", n);
    for (size_t i = 0; i < n; i++) {
        printf("    [%u] %s\n", pcs_stall_reason_index(i), pcs_stall_reason_name(i));
    }
    for (size_t i = 0; i < pcs_attribute_count(); i++) {
        printf("  attribute %d status %d\n", (int)pcs_attribute(i)->attributeType, (int)pcs_attribute(i)->attributeStatus);
    }
    CUpti_PCSamplingConfigurationInfo period = {0};
    period.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    CUpti_PCSamplingConfigurationInfoParams gp = {0};
    gp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    gp.ctx = g_ctx;
    gp.numAttributes = 1;
    gp.pPCSamplingConfigurationInfo = &period;
    r = cuptiPCSamplingGetConfigurationAttribute(&gp);
    printf("  default sampling period -> %d: %u (status %d)\n", (int)r,
           period.attributeData.samplingPeriodData.samplingPeriod, (int)period.attributeStatus);
}

static void on_pc(void *arg, const CUpti_PCSamplingPCData *pc) {
    (void)arg;
    g_pcs++;
    if (pc->functionName != NULL) {
        g_name_records++;
        size_t i = 0;
        while (i < g_name_count && g_names[i] != pc->functionName) i++;
        if (i == g_name_count && g_name_count < MAX_NAMES) g_names[g_name_count++] = pc->functionName;
    }
    for (size_t s = 0; s < pc->stallReasonCount && pc->stallReason != NULL; s++) {
        if (pc->stallReason[s].samples > 0) {
            g_pairs++;
            g_samples += pc->stallReason[s].samples;
        }
    }
    size_t i = 0;
    while (i < g_pc_corr_n && g_pc_corr[i] != pc->correlationId) i++;
    if (i == g_pc_corr_n && g_pc_corr_n < MAX_CORR) g_pc_corr[g_pc_corr_n++] = pc->correlationId;
}

static void on_round(void *arg, int round, CUptiResult r, const CUpti_PCSamplingData *d) {
    (void)arg;
    char label[64];
    snprintf(label, sizeof label, "GetData round %d rc %d", round, (int)r);
    print_data(label, d);
}

static void on_kernel(void *arg, const char *name, uint64_t start, uint64_t end, uint32_t corr, uint32_t graph) {
    (void)arg;
    (void)name;
    (void)start;
    (void)end;
    (void)graph;
    if (g_kernels < MAX_CORR) g_kernel_corr[g_kernels] = corr;
    g_kernels++;
}

static void drain(const char *when) {
    const char *what;
    pcs_drain_stats st;
    printf("  drain (%s)\n", when);
    CUptiResult r = pcs_drain(g_ctx, on_pc, on_round, NULL, &st, &what);
    printf("  drain -> %d (%s): rounds %d, pcs %zu, capped %d, buffer full %d\n", (int)r, pcs_result_string(r),
           st.rounds, st.pcs, st.capped, st.buffer_full);
    g_capped_drains += (size_t)st.capped;
    g_buffer_full += (size_t)st.buffer_full;
    print_data("config buffer", pcs_config_buffer());
}

static void bursts(int count, int armed) {
    const char *what;
    void *params[] = {&g_buf, &(int){ITERS}};
    for (int b = 0; b < count; b++) {
        printf("burst %d\n", b + 1);
        cu_check("cuCtxSynchronize", cu.sync());
        CUptiResult r = pcs_start(g_ctx, &what);
        if (!cupti_check(what, r)) return;
        for (int i = 0; i < LAUNCHES; i++) {
            CUres lr = cu.launch(g_fn, BLOCKS, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL);
            CUres sr = cu.sync();
            if (lr != 0 || sr != 0) {
                printf("  launch %d -> %d, cuCtxSynchronize -> %d\n", i, lr, sr);
                g_failed = 1;
                return;
            }
            if (armed) drain("armed, after a kernel");
        }
        cupti_check("cuptiPCSamplingStop", pcs_stop(g_ctx, &what));
        drain("after stop");
        cupti_check("cuptiActivityFlushAll(FORCED)", pcs_flush_activity(1, &what));
        pcs_take_kernels(on_kernel, NULL);
    }
}

static void disable(void) {
    const char *what;
    cupti_check("cuptiPCSamplingDisable", pcs_disable(g_ctx, &what));
    print_data("config buffer after Disable", pcs_config_buffer());
}

static void summary(int expect_kernels) {
    size_t matched = 0;
    for (size_t i = 0; i < g_pc_corr_n; i++) {
        for (size_t k = 0; k < g_kernels && k < MAX_CORR; k++) {
            if (g_kernel_corr[k] == g_pc_corr[i]) {
                matched++;
                break;
            }
        }
    }
    printf("functions:");
    for (size_t i = 0; i < g_name_count; i++) printf(" %s", g_names[i]);
    printf("\n");
    int pass = !g_failed && g_pairs > 0 && g_capped_drains == 0 && g_buffer_full == 0
        && (size_t)expect_kernels == g_kernels && matched == g_pc_corr_n;
    printf("PCDIAG %s %s: pcs %zu, pairs %zu, samples %llu, names %zu pointers for %zu records, "
           "correlationIds %zu of %zu in kernel records, kernel records %zu of %d, capped drains %zu, "
           "buffer full %zu, %.1f s\n", g_case, pass ? "PASS" : "FAIL", g_pcs, g_pairs, g_samples, g_name_count,
           g_name_records, matched, g_pc_corr_n, g_kernels, expect_kernels, g_capped_drains, g_buffer_full, elapsed());
}

static int support(void) {
    CUpti_Profiler_Initialize_Params ip = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    cupti_check("cuptiProfilerInitialize", cuptiProfilerInitialize(&ip));
    CUpti_Profiler_DeviceSupported_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = g_dev;
    p.api = CUPTI_PROFILER_PC_SAMPLING;
    CUptiResult r = cuptiProfilerDeviceSupported(&p);
    printf("PCDIAG support %s: rc %d, isSupported %d, architecture %d, sli %d, vGpu %d, confidentialCompute %d, "
           "cmp %d, wsl %d (1 = supported)\n", r == CUPTI_SUCCESS && p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED
           ? "PASS" : "FAIL", (int)r, (int)p.isSupported, (int)p.architecture, (int)p.sli, (int)p.vGpu,
           (int)p.confidentialCompute, (int)p.cmp, (int)p.wsl);
    return r == CUPTI_SUCCESS && p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? 0 : 1;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b != NULL && fread(b, 1, (size_t)n, f) == (size_t)n) {
        b[n] = 0;
    } else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    dup2(1, 2);
    clock_gettime(CLOCK_MONOTONIC, &g_t0);
    signal(SIGALRM, on_alarm);
    alarm(25);
    if (argc != 3) {
        printf("usage: pcdiag support|ref|armed|modfirst|samebuf|zerocount|actafter|shim SPIN_PTX\n");
        return 2;
    }
    g_case = argv[1];
    if ((g_ptx = read_file(argv[2])) == NULL) {
        printf("PCDIAG %s FAIL: cannot read %s\n", g_case, argv[2]);
        return 2;
    }
    load_driver();
    if (!cu_check("cuInit", cu.init(0)) || !cu_check("cuDeviceGet", cu.device_get(&g_dev, 0))) {
        printf("PCDIAG %s FAIL: no device\n", g_case);
        return 2;
    }
    printf("case %s\n", g_case);
    if (strcmp(g_case, "support") == 0) {
        machine();
        return support();
    }
    int expect = BURSTS * LAUNCHES;
    if (strcmp(g_case, "ref") == 0 || strcmp(g_case, "armed") == 0 || strcmp(g_case, "samebuf") == 0
            || strcmp(g_case, "zerocount") == 0) {
        pcs_variant_same_buffer = strcmp(g_case, "samebuf") == 0;
        pcs_variant_zero_stall_slots = strcmp(g_case, "zerocount") == 0;
        activity();
        machine();
        if (context()) {
            configure();
            if (pcs_enabled() && module()) bursts(BURSTS, strcmp(g_case, "armed") == 0);
            disable();
        }
    } else if (strcmp(g_case, "modfirst") == 0) {
        if (context() && module()) {
            activity();
            machine();
            configure();
            if (pcs_enabled()) bursts(BURSTS, 0);
            disable();
        }
    } else if (strcmp(g_case, "actafter") == 0) {
        machine();
        if (context()) {
            CUpti_PCSamplingEnableParams ep = {CUpti_PCSamplingEnableParamsSize, NULL, g_ctx};
            CUptiResult r = cuptiPCSamplingEnable(&ep);
            printf("  cuptiPCSamplingEnable -> %d (%s)\n", (int)r, pcs_result_string(r));
            const char *what;
            CUptiResult a = pcs_init_activity(&what);
            printf("  %s after Enable -> %d (%s)\n", what, (int)a, pcs_result_string(a));
            CUpti_PCSamplingDisableParams dp = {CUpti_PCSamplingDisableParamsSize, NULL, g_ctx};
            r = cuptiPCSamplingDisable(&dp);
            printf("  cuptiPCSamplingDisable -> %d\n", (int)r);
            printf("PCDIAG actafter %s: activity after Enable -> %d (expected %d, CUPTI_ERROR_NOT_COMPATIBLE), %.1f s\n",
                   a == CUPTI_ERROR_NOT_COMPATIBLE ? "PASS" : "FAIL", (int)a, (int)CUPTI_ERROR_NOT_COMPATIBLE, elapsed());
            return a == CUPTI_ERROR_NOT_COMPATIBLE ? 0 : 1;
        }
    } else if (strcmp(g_case, "shim") == 0) {
        machine();
        if (context() && activity()) {
            configure();
            if (pcs_enabled() && module()) bursts(BURSTS - 1, 0);
            printf("context reset: Stop (none open), drain, Disable, then cuDevicePrimaryCtxReset\n");
            drain("before the reset");
            disable();
            cu_check("cuDevicePrimaryCtxRelease", cu.release(g_dev));
            cu_check("cuDevicePrimaryCtxReset", cu.reset(g_dev));
            g_buf = 0;
            if (context()) {
                configure();
                if (pcs_enabled() && module()) bursts(1, 0);
                printf("exit: drain, Disable\n");
                drain("at exit");
                disable();
            }
        }
    } else {
        printf("PCDIAG %s FAIL: no such case\n", g_case);
        return 2;
    }
    summary(expect);
    return g_failed ? 1 : 0;
}
