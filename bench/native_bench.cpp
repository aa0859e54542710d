// Native side of `npm run bench`: the same C++ as the WASM module, built with -O3, timed here.
// Prints JSON: {gpt: {stepsPerSec: [...]}, mha: [{B, T, C, heads, forwardMs: [...], forwardOutMs: [...],
// fwdBwdMs: [...]}]} (one number per repeat; bench/run.mjs takes medians and compares with WASM in
// Node). forwardMs: the forward with every result (scores and weights (B, NH, T, T) included);
// forwardOutMs: out alone (multi_head_attention_out, what JS's results: 'out' runs).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt.hpp"

using namespace attn;
using clk = std::chrono::steady_clock;

static double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

static std::string list(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

// Multi-head attention at (B, T, C, NH): `repeats` timings of the forward with every result, of
// out alone and of forward+backward, interleaved, after a warm-up of three times the timed loop.
struct MhaTimes { std::vector<double> fwd, fo, fb; };
static MhaTimes time_mha(std::size_t B, std::size_t T, std::size_t C, std::size_t NH, int repeats) {
    const Tensor x = randn({B, T, C}, 1), g = randn({B, T, C}, 5);
    MhaOptions o;
    o.wq = randn({C, C}, 2, 0.1); o.wk = randn({C, C}, 3, 0.1); o.wv = randn({C, C}, 4, 0.1);
    o.heads = NH; o.causal = true;
    const int inner = B * T * T * C > 10000000 ? 1 : B * T * T * C > 100000 ? 5 : 200;
    MhaTimes m;
    for (int i = 0; i < 3 * inner; ++i) {   // warm-up
        multi_head_attention(x, o);
        multi_head_attention_out(x, o);
        multi_head_attention_backward(x, g, o);
    }
    for (int r = 0; r < repeats; ++r) {   // the three interleaved, repeat by repeat
        auto t0 = clk::now();
        for (int i = 0; i < inner; ++i) multi_head_attention(x, o);
        m.fwd.push_back(ms_since(t0) / inner);
        t0 = clk::now();
        for (int i = 0; i < inner; ++i) multi_head_attention_out(x, o);
        m.fo.push_back(ms_since(t0) / inner);
        t0 = clk::now();
        for (int i = 0; i < inner; ++i) multi_head_attention_backward(x, g, o);   // runs the forward it needs, then the backward
        m.fb.push_back(ms_since(t0) / inner);
    }
    return m;
}

static std::string mha_json(std::size_t B, std::size_t T, std::size_t C, std::size_t NH, const MhaTimes& m) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "{\"B\":%zu,\"T\":%zu,\"C\":%zu,\"heads\":%zu,", B, T, C, NH);
    return std::string(buf) + "\"forwardMs\":" + list(m.fwd) + ",\"forwardOutMs\":" + list(m.fo) + ",\"fwdBwdMs\":" + list(m.fb) + "}";
}

int main(int argc, char** argv) {
    // attn_bench --mha B T C NH REPEATS: one size alone (bench/run.mjs alternates it with WASM)
    if (argc == 7 && std::string(argv[1]) == "--mha") {
        const std::size_t B = std::stoul(argv[2]), T = std::stoul(argv[3]), C = std::stoul(argv[4]), NH = std::stoul(argv[5]);
        std::printf("%s\n", mha_json(B, T, C, NH, time_mha(B, T, C, NH, std::stoi(argv[6]))).c_str());
        return 0;
    }
    if (argc != 3) { std::fprintf(stderr, "usage: attn_bench TRAIN_TEXT REPEATS | attn_bench --mha B T C NH REPEATS\n"); return 2; }
    std::ifstream f(argv[1]);
    std::stringstream text;
    text << f.rdbuf();
    const int repeats = std::stoi(argv[2]);
    // GPT training, the page's default configuration
    std::vector<double> sps;
    {
        Options o{{"C", 48.0}, {"heads", 4.0}, {"layers", 2.0}, {"tMax", 32.0}, {"batch", 8.0}, {"seed", 1.0}};
        CharTrainer tr = make_trainer(text.str(), o);
        tr.train_steps(5);   // warm-up
        for (int r = 0; r < repeats; ++r) {
            const auto t0 = clk::now();
            tr.train_steps(20);
            sps.push_back(20.0 / (ms_since(t0) / 1000.0));
        }
    }
    std::string mha = "[";
    const std::size_t sizes[][4] = {{1, 8, 16, 2}, {1, 64, 64, 4}, {1, 256, 64, 4}, {4, 256, 128, 8}};
    for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t B = sizes[k][0], T = sizes[k][1], C = sizes[k][2], NH = sizes[k][3];
        mha += (k ? "," : "") + mha_json(B, T, C, NH, time_mha(B, T, C, NH, repeats));
    }
    mha += "]";
    std::printf("{\"gpt\":{\"stepsPerSec\":%s},\"mha\":%s}\n", list(sps).c_str(), mha.c_str());
    return 0;
}
