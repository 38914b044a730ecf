/*
 * rt_cpu_main.cpp: the CPU runner of a translation (cuda-cpu). Built as one translation unit with the
 * kernel:  g++ -std=c++17 -O2 -ffp-contract=off -fno-strict-aliasing -frounding-math -I. rt_cpu_main.cpp
 * (it includes kernel.cu). Usage: runner BUNDLE RESULT
 *
 * Reads the launch bundle (LaunchBundle.java writes it), runs every group of the dispatch in order
 * (x fastest), each group's waves under a deterministic scheduler: wave 0, 1, ... each runs until it
 * ends, faults or reaches a barrier; once every wave that has not ended waits, the barrier opens and
 * the round starts again. A fault stops the whole group (the other groups run), as the host model does.
 * Writes the final ranges, the images section, and per group its fault record and instruction counts.
 *
 * Bundle (little-endian): "RFLB0001"; u32 group_count[3], group_size[3], waves_per_group, mode,
 * scratch_per_lane, lds_bytes; u64 budget, flat_scratch; u32 nuser then (u32 index, u32 value)*;
 * u32 nsys then (index, kind)*; u32 nwi then (index, dim)*; u32 nranges then per range (u32 index,
 * u32 flags, u64 guest address, u64 size, size bytes, zero padding to 8); u64 image section bytes, the
 * section, padding to 8.
 * Result: "RFLR0001"; u32 nranges then per range (u32 index, u32 0, u64 size, bytes, padding to 8);
 * u64 image section bytes, the section, padding; u32 ngroups then per group (u32 set, u32 code,
 * u32 wave, i32 lane, u64 pc, u64 addr, u64 wave instructions, u64 lane instructions).
 */
#include "rt_sys.h" /* first: g++ takes it precompiled when rt_sys.h.gch lies beside it (CpuBuild) */
#include "kernel.cu"

namespace {

struct Reader {
    const uint8_t *p;
    size_t n, at;
    bool bad = false;
    uint32_t u32() { uint32_t v = 0; take(&v, 4); return v; }
    uint64_t u64() { uint64_t v = 0; take(&v, 8); return v; }
    void take(void *dst, size_t k) {
        if (at + k > n) { bad = true; memset(dst, 0, k); return; }
        memcpy(dst, p + at, k);
        at += k;
    }
    const uint8_t *bytes(size_t k) {
        if (at + k > n) { bad = true; return nullptr; }
        const uint8_t *r = p + at;
        at += k;
        return r;
    }
    void align8() { at = (at + 7) & ~(size_t)7; }
};

[[noreturn]] void die(const char *what) {
    fprintf(stderr, "rt_cpu_main: %s\n", what);
    exit(3);
}

void put(FILE *f, const void *p, size_t k) {
    if (k && fwrite(p, 1, k, f) != k) die("cannot write the result");
}
void put32(FILE *f, uint32_t v) { put(f, &v, 4); }
void put64(FILE *f, uint64_t v) { put(f, &v, 8); }
void pad8(FILE *f, size_t k) {
    static const uint8_t zero[8] = {0};
    put(f, zero, (8 - (k & 7)) & 7);
}

} // namespace

#if defined(RT_TRACE)
/*
 * The lockstep trace (built with -DRT_TRACE; replay explain --first-divergence reads it: evalnode/trace/DeviceTrace).
 * Environment: RT_TRACE_FILE (where), RT_TRACE_GROUP=X,Y,Z (the one group run and traced: the others are skipped) or
 * all (every group in order, each from the initial memory and images, as the host model evaluates a group alone),
 * RT_TRACE_MAX_STEPS (default 5000000: past it the trace ends with a record of kind 3 and the run stops).
 * File (little-endian): "RFTR0001", u32 wave size, u32 VGPRs, u32 group x, y, z, u32 0; then records:
 * u32 kind (1: a wave's initial registers, 2: an executed instruction, 3: the trace stopped at its limit, 4: a group
 * starts, its id in pc (x) and next (y | z << 32); with RT_TRACE_GROUP=all the header's group is ~0, ~0, ~0),
 * u32 wave, u64 pc, u64 next (the PC executed next; ~0 the wave ended, ~1 it stopped at a fault), u32 n, u32 0,
 * n changes (u32 register, u32 lane, u32 new value): register 0-127 an SGPR (lane 0), 256 + r VGPR r,
 * 1024 SCC, 1025 MODE. An initial record lists every register that is not zero.
 */
namespace {
struct rt_trace_wave_t {
    int on;
    int pending;
    uint64_t pc;
    rt_wave_t shadow;
};
FILE *rt_trace_out = nullptr;
std::vector<rt_trace_wave_t> rt_trace_waves;
std::vector<uint32_t> rt_trace_buf;
uint64_t rt_trace_steps = 0, rt_trace_limit = 5000000;
int rt_trace_full = 0;
volatile uint32_t *rt_trace_abort = nullptr; /* the launch's abort flag: raised when the trace is full */

void rt_trace_change(uint32_t reg, uint32_t lane, uint32_t value) {
    rt_trace_buf.push_back(reg); rt_trace_buf.push_back(lane); rt_trace_buf.push_back(value);
}

/* the record of wave w: every register that differs from the shadow (then updated) */
void rt_trace_record(uint32_t kind, const rt_wave_t *w, uint64_t pc, uint64_t next) {
    rt_trace_wave_t &t = rt_trace_waves[w->index];
    rt_trace_buf.clear();
    for (uint32_t c = 0; c < 128; c++)
        if (w->s[c] != t.shadow.s[c]) rt_trace_change(c, 0, w->s[c]);
    for (uint32_t r = 0; r < RT_NVGPR; r++)
        for (uint32_t l = 0; l < RT_WAVE; l++)
            if (w->v[r][l] != t.shadow.v[r][l]) rt_trace_change(256 + r, l, w->v[r][l]);
    if (w->scc != t.shadow.scc) rt_trace_change(1024, 0, w->scc);
    if (w->mode != t.shadow.mode) rt_trace_change(1025, 0, w->mode);
    memcpy(t.shadow.s, w->s, sizeof w->s);
    memcpy(t.shadow.v, w->v, sizeof w->v);
    t.shadow.scc = w->scc;
    t.shadow.mode = w->mode;
    put32(rt_trace_out, kind);
    put32(rt_trace_out, w->index);
    put64(rt_trace_out, pc);
    put64(rt_trace_out, next);
    put32(rt_trace_out, (uint32_t)(rt_trace_buf.size() / 3));
    put32(rt_trace_out, 0);
    put(rt_trace_out, rt_trace_buf.data(), rt_trace_buf.size() * 4);
}

void rt_trace_flush(const rt_wave_t *w, uint64_t next) {
    if (!rt_trace_out || w->index >= rt_trace_waves.size()) return;
    rt_trace_wave_t &t = rt_trace_waves[w->index];
    if (!t.on || !t.pending) return;
    t.pending = 0;
    if (rt_trace_full) return;
    if (++rt_trace_steps > rt_trace_limit) {
        rt_trace_full = 1;
        if (rt_trace_abort) *rt_trace_abort = 1; /* nothing past the limit is compared: stop the group */
        put32(rt_trace_out, 3); put32(rt_trace_out, w->index); put64(rt_trace_out, t.pc); put64(rt_trace_out, 0);
        put32(rt_trace_out, 0); put32(rt_trace_out, 0);
        return;
    }
    rt_trace_record(2, w, t.pc, next);
}
} // namespace

RT_FN void rt_trace_at(const rt_ctx_t *c, uint64_t pc) {
    if (!rt_trace_out || c->w->index >= rt_trace_waves.size()) return;
    rt_trace_wave_t &t = rt_trace_waves[c->w->index];
    if (!t.on) return;
    rt_trace_flush(c->w, pc);
    t.pc = pc;
    t.pending = 1;
}
#endif

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) die("usage: runner BUNDLE RESULT [STATE]");
    /* STATE (for differential tests): per group, per wave: u32 state, scc, mode, 0, the 128 SGPRs, then
       RT_NVGPR x RT_WAVE VGPR words (register-major, lanes contiguous) */
    FILE *state = argc == 4 ? fopen(argv[3], "wb") : nullptr;
    if (argc == 4 && !state) die("cannot create the state file");
    FILE *in = fopen(argv[1], "rb");
    if (!in) die("cannot open the bundle");
    std::vector<uint8_t> data;
    {
        uint8_t buf[1 << 16];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, in)) > 0) data.insert(data.end(), buf, buf + k);
        fclose(in);
    }
    Reader r{data.data(), data.size(), 0};
    const uint8_t *magic = r.bytes(8);
    if (!magic || memcmp(magic, "RFLB0001", 8) != 0) die("not a launch bundle (magic)");

    static rt_launch_t L;
    memset(&L, 0, sizeof L);
    for (int i = 0; i < 3; i++) L.group_count[i] = r.u32();
    for (int i = 0; i < 3; i++) L.group_size[i] = r.u32();
    L.waves_per_group = r.u32();
    L.mode = r.u32();
    L.scratch_per_lane = r.u32();
    L.lds_bytes = r.u32();
    L.budget = r.u64();
    L.flat_scratch = r.u64();
    L.nuser = r.u32();
    if (L.nuser > RT_MAX_USER) die("too many user SGPRs");
    for (uint32_t i = 0; i < L.nuser; i++) { L.user_index[i] = r.u32(); L.user_value[i] = r.u32(); }
    L.nsys = r.u32();
    if (L.nsys > RT_MAX_SYS) die("too many system SGPRs");
    for (uint32_t i = 0; i < L.nsys; i++) { L.sys_index[i] = r.u32(); L.sys_kind[i] = r.u32(); }
    L.nwi = r.u32();
    if (L.nwi > 3) die("too many work-item VGPRs");
    for (uint32_t i = 0; i < L.nwi; i++) { L.wi_index[i] = r.u32(); L.wi_dim[i] = r.u32(); }
    for (uint32_t i = 0; i < L.nuser; i++) if (L.user_index[i] > 127) die("user SGPR index past 127");
    for (uint32_t i = 0; i < L.nsys; i++) if (L.sys_index[i] > 127) die("system SGPR index past 127");
    for (uint32_t i = 0; i < L.nwi; i++) if (L.wi_dim[i] < 1 || L.wi_dim[i] > 3) die("bad work-item dimension");

    L.nranges = r.u32();
    std::vector<rt_range_t> ranges(L.nranges);
    std::vector<std::vector<uint8_t>> memory(L.nranges);
    for (uint32_t i = 0; i < L.nranges; i++) {
        ranges[i].index = r.u32();
        ranges[i].flags = r.u32();
        ranges[i].lo = r.u64();
        ranges[i].size = r.u64();
        const uint8_t *b = r.bytes(ranges[i].size);
        if (!b) die("the bundle ends inside a range");
        memory[i].assign(b, b + ranges[i].size);
        memory[i].resize(ranges[i].size + 16); /* slack: never addressed by a checked access */
        ranges[i].base = memory[i].data();
        r.align8();
    }
    L.ranges = ranges.data();
    uint64_t image_bytes = r.u64();
    const uint8_t *ib = r.bytes(image_bytes);
    if (!ib) die("the bundle ends inside the images section");
    std::vector<uint8_t> images(ib, ib + image_bytes);
    images.resize(image_bytes + 16);
    L.images = images.data();
    L.images_bytes = image_bytes;
    r.align8();
    if (r.bad) die("the bundle is truncated");

    uint64_t groups = (uint64_t)L.group_count[0] * L.group_count[1] * L.group_count[2];
    std::vector<rt_fault_t> faults(groups);
    std::vector<uint64_t> counts(2 * groups);
    memset(faults.data(), 0, groups * sizeof(rt_fault_t));
    L.faults = faults.data();
    L.counts = counts.data();
    static volatile uint32_t abort_flag = 0;
    L.abort = &abort_flag;
#if defined(RT_TRACE)
    rt_trace_abort = &abort_flag;
#endif

    uint32_t nw = L.waves_per_group;
    std::vector<rt_wave_t> waves(nw);
#if defined(RT_TRACE)
    const std::vector<std::vector<uint8_t>> initial_memory = memory;
    const std::vector<uint8_t> initial_images = images;
    uint32_t trace_group[3] = {0, 0, 0};
    bool trace_all = false;
    {
        const char *file = getenv("RT_TRACE_FILE");
        const char *group = getenv("RT_TRACE_GROUP");
        const char *limit = getenv("RT_TRACE_MAX_STEPS");
        if (!file || !group) die("a tracing runner (RT_TRACE) needs RT_TRACE_FILE and RT_TRACE_GROUP=X,Y,Z");
        if (strcmp(group, "all") == 0) {
            trace_all = true;
            trace_group[0] = trace_group[1] = trace_group[2] = ~0u;
        } else {
            if (sscanf(group, "%u,%u,%u", &trace_group[0], &trace_group[1], &trace_group[2]) != 3)
                die("RT_TRACE_GROUP: expected X,Y,Z or all");
            for (int i = 0; i < 3; i++) if (trace_group[i] >= L.group_count[i]) die("RT_TRACE_GROUP is outside the dispatch");
        }
        if (limit) rt_trace_limit = strtoull(limit, nullptr, 10);
        rt_trace_out = fopen(file, "wb");
        if (!rt_trace_out) die("cannot create the trace file");
        put(rt_trace_out, "RFTR0001", 8);
        put32(rt_trace_out, RT_WAVE); put32(rt_trace_out, RT_NVGPR);
        for (int i = 0; i < 3; i++) put32(rt_trace_out, trace_group[i]);
        put32(rt_trace_out, 0);
        rt_trace_waves.resize(nw);
    }
#endif
    std::vector<uint8_t> lds(L.lds_bytes + 16);
    uint64_t scratch_bytes = (uint64_t)nw * RT_WAVE * L.scratch_per_lane;
    std::vector<uint8_t> scratch(scratch_bytes + 16);
    L.scratch = scratch.data();

    for (uint32_t gz = 0; gz < L.group_count[2]; gz++)
    for (uint32_t gy = 0; gy < L.group_count[1]; gy++)
    for (uint32_t gx = 0; gx < L.group_count[0]; gx++) {
        uint64_t linear = gx + (uint64_t)L.group_count[0] * (gy + (uint64_t)L.group_count[1] * gz);
#if defined(RT_TRACE)
        if (!trace_all && (gx != trace_group[0] || gy != trace_group[1] || gz != trace_group[2])) continue;
        if (abort_flag) break;
        if (trace_all) {
            /* each group from the initial memory, as the host model evaluates it */
            for (uint32_t i = 0; i < L.nranges; i++)
                memcpy(memory[i].data(), initial_memory[i].data(), ranges[i].size);
            memcpy(images.data(), initial_images.data(), image_bytes);
            put32(rt_trace_out, 4); put32(rt_trace_out, 0); put64(rt_trace_out, gx);
            put64(rt_trace_out, (uint64_t)gy | (uint64_t)gz << 32); put32(rt_trace_out, 0); put32(rt_trace_out, 0);
        }
#endif
        rt_group_t g;
        memset(&g, 0, sizeof g);
        g.id[0] = gx; g.id[1] = gy; g.id[2] = gz;
        g.linear = (uint32_t)linear;
        std::fill(lds.begin(), lds.end(), 0);
        std::fill(scratch.begin(), scratch.end(), 0);
        g.lds = lds.data();
        g.scratch = scratch.data();
        g.fault = &faults[linear];
        for (uint32_t w = 0; w < nw; w++) rt_wave_init(&waves[w], &L, &g, w);
#if defined(RT_TRACE)
        for (uint32_t w = 0; w < nw; w++) {
            memset(&rt_trace_waves[w], 0, sizeof(rt_trace_wave_t));
            rt_trace_waves[w].on = 1;
            rt_trace_record(1, &waves[w], 0, 0);
        }
#endif
        bool stopped = false;
        while (!stopped) {
            bool live = false;
            for (uint32_t w = 0; w < nw && !stopped; w++) {
                rt_wave_t *wave = &waves[w];
                if (wave->state == RT_RUNNING) {
                    rt_ctx_t ctx = {wave, &g, &L};
                    rt_program_wave(&ctx);
#if defined(RT_TRACE)
                    if (wave->state == RT_ENDED) rt_trace_flush(wave, ~0ull);
                    else if (wave->state == RT_STOPPED) rt_trace_flush(wave, ~1ull);
                    /* at a barrier: its s_barrier (4 bytes) is recorded now, the wave resumes after it */
                    else if (wave->state == RT_AT_BARRIER && wave->index < rt_trace_waves.size())
                        rt_trace_flush(wave, rt_trace_waves[wave->index].pc + 4);
#endif
                    if (wave->state == RT_STOPPED || g.stopped) stopped = true;
                }
                live |= wave->state != RT_ENDED;
            }
            if (stopped || !live) break;
            /* every wave that has not ended waits at a barrier: it opens */
            for (uint32_t w = 0; w < nw; w++) if (waves[w].state == RT_AT_BARRIER) waves[w].state = RT_RUNNING;
        }
        for (uint32_t w = 0; w < nw; w++) {
            counts[2 * linear] += waves[w].icount;
            counts[2 * linear + 1] += waves[w].lcount;
            if (state) {
                put32(state, waves[w].state);
                put32(state, waves[w].scc);
                put32(state, waves[w].mode);
                put32(state, 0);
                put(state, waves[w].s, sizeof waves[w].s);
                put(state, waves[w].v, sizeof waves[w].v);
            }
        }
    }

    FILE *out = fopen(argv[2], "wb");
    if (!out) die("cannot create the result");
    put(out, "RFLR0001", 8);
    put32(out, L.nranges);
    for (uint32_t i = 0; i < L.nranges; i++) {
        put32(out, ranges[i].index);
        put32(out, 0);
        put64(out, ranges[i].size);
        put(out, memory[i].data(), ranges[i].size);
        pad8(out, ranges[i].size);
    }
    put64(out, image_bytes);
    put(out, images.data(), image_bytes);
    pad8(out, image_bytes);
    put32(out, (uint32_t)groups);
    for (uint64_t i = 0; i < groups; i++) {
        put32(out, faults[i].set ? 1u : 0u);
        put32(out, faults[i].code);
        put32(out, faults[i].wave);
        put32(out, (uint32_t)faults[i].lane);
        put64(out, faults[i].pc);
        put64(out, faults[i].addr);
        put64(out, counts[2 * i]);
        put64(out, counts[2 * i + 1]);
    }
    if (fclose(out) != 0) die("cannot write the result");
    if (state && fclose(state) != 0) die("cannot write the state file");
#if defined(RT_TRACE)
    if (fclose(rt_trace_out) != 0) die("cannot write the trace file");
#endif
    return 0;
}
