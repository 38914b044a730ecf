// Test driver for rt_image.h: one command a line on stdin, one answer a line on stdout (hex words).
//   D FMT b0..b15          decode a texel               -> r0 r1 r2 r3
//   E FMT r0 r1 r2 r3      encode a texel               -> the texel's bytes
//   H FMT reg / W FMT half  D16 narrow / widen           -> value
//   B w0..w3 lo hi ray0..ray9 nd0..nd31   BVH node test -> holds out0..out3
//   A OP WIDE old data cmp  an image atomic's new value  -> value
#include "rt_image.h"
#include <stdio.h>
#include <string>
#include <sstream>
#include <iostream>

static uint32_t hx(std::istringstream &in) { std::string s; in >> s; return (uint32_t)strtoul(s.c_str(), 0, 16); }
static uint64_t hx64(std::istringstream &in) { std::string s; in >> s; return (uint64_t)strtoull(s.c_str(), 0, 16); }

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        in >> cmd;
        if (cmd == "D" || cmd == "E" || cmd == "H" || cmd == "W") {
            rt_img_fmt_t f;
            uint32_t n = hx(in);
            if (!rt_img_format(n, &f)) { printf("unknown\n"); continue; }
            if (cmd == "D") {
                uint8_t b[16];
                for (int i = 0; i < 16; i++) b[i] = (uint8_t)hx(in);
                uint32_t r[4];
                rt_img_decode(&f, b, r);
                printf("%08x %08x %08x %08x\n", r[0], r[1], r[2], r[3]);
            } else if (cmd == "E") {
                uint32_t r[4];
                for (int i = 0; i < 4; i++) r[i] = hx(in);
                uint8_t b[16];
                memset(b, 0, 16);
                rt_img_encode(&f, r, b);
                for (uint32_t i = 0; i < f.bytes; i++) printf(i ? " %02x" : "%02x", b[i]);
                printf("\n");
            } else if (cmd == "H") {
                printf("%08x\n", rt_img_to_d16(&f, hx(in)));
            } else {
                printf("%08x\n", rt_img_from_d16(&f, hx(in)));
            }
        } else if (cmd == "B") {
            uint32_t w[4];
            for (int i = 0; i < 4; i++) w[i] = hx(in);
            uint64_t lo = hx(in), hi = hx(in);
            uint64_t node = lo | (hi << 32);
            float ray[10];
            for (int i = 0; i < 10; i++) ray[i] = rt_img_f(hx(in));
            uint32_t nd[32];
            for (int i = 0; i < 32; i++) nd[i] = hx(in);
            rt_bvh_desc_t d;
            rt_bvh_desc(w, &d);
            uint32_t mask = rt_bvh_fetch_mask(node), only[32];
            for (int i = 0; i < 32; i++) only[i] = ((mask >> i) & 1u) ? nd[i] : 0xDEADBEEFu; // unread dwords poisoned
            uint32_t out[4];
            rt_bvh_intersect(&d, node, ray, only, out);
            printf("%d %08x %08x %08x %08x\n", rt_bvh_holds(&d, node), out[0], out[1], out[2], out[3]);
        } else if (cmd == "A") {
            uint32_t op = hx(in), wide = hx(in);
            uint64_t old = hx64(in), data = hx64(in), cmp = hx64(in);
            printf("%016llx\n", (unsigned long long)rt_atomic_op(op, old, data, cmp, wide ? 8 : 4));
        } else if (!cmd.empty()) {
            printf("bad command %s\n", cmd.c_str());
        }
    }
    return 0;
}
