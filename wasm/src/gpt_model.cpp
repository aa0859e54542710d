// The character GPT's model: parameters and their GPT-2 initialisation, the forward pass (keeping
// its activations), the backward pass mirroring it, the AdamW step, and the whole-model gradient
// check. The kernels are in gpt_kernels.cpp; attention is the lab's sdpa kernel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/gpt.hpp"
#include "gpt_kernels.hpp"
#include "internal.hpp"
#include "kernels.hpp"

namespace attn {

// ---- parameters ---------------------------------------------------------------------------------
Gpt::Gpt(const GptConfig& cfg) : cfg_(cfg) {
    const char* fn = "createModel";
    if (cfg.vocab < 2 || cfg.vocab > CharData::kMaxVocab)
        throw Error(ErrorCode::vocab_size, {{"fn", fn}, {"arg", "text"}, {"vocab", cfg.vocab}, {"min", 2}, {"max", CharData::kMaxVocab}});
    for (const auto& [arg, v, hi] : {std::tuple{"opts.C", cfg.C, kGptMaxC}, std::tuple{"opts.heads", cfg.heads, kGptMaxC},
                                     std::tuple{"opts.layers", cfg.layers, kGptMaxLayers}, std::tuple{"opts.tMax", cfg.t_max, kGptMaxT}})
        if (v < 1 || v > hi) detail::to_index({fn, arg}, double(v), 1, hi);
    if (cfg.C % cfg.heads != 0) throw Error(ErrorCode::heads_not_dividing, {{"fn", fn}, {"heads", cfg.heads}, {"axis", "C"}, {"width", cfg.C}});
    const std::size_t V = cfg.vocab, C = cfg.C, L = cfg.layers;
    std::size_t o = 0;
    auto take = [&o](std::size_t n) { const std::size_t at = o; o += n; return at; };
    layout_.wte = take(V * C);
    layout_.wpe = take(cfg.t_max * C);
    layout_.ln1w = take(L * C);
    layout_.ln1b = take(L * C);
    layout_.qkvw = take(L * C * 3 * C);
    layout_.qkvb = take(L * 3 * C);
    layout_.attprojw = take(L * C * C);
    layout_.attprojb = take(L * C);
    layout_.ln2w = take(L * C);
    layout_.ln2b = take(L * C);
    layout_.fcw = take(L * C * 4 * C);
    layout_.fcb = take(L * 4 * C);
    layout_.fcprojw = take(L * 4 * C * C);
    layout_.fcprojb = take(L * C);
    layout_.lnfw = take(C);
    layout_.lnfb = take(C);
    layout_.total = o;
    if (o > kMaxElements) detail::too_large({fn, "parameters"}, "", {o});
    params_.assign(o, 0.0);
    grads_.assign(o, 0.0);
    m_.assign(o, 0.0);
    v_.assign(o, 0.0);
    // GPT-2 initialisation: N(0, 0.02) weights, projections into the residual scaled by 1/sqrt(2L),
    // zero biases, unit layernorm gains. One seeded stream, drawn in layout order.
    detail::Rng rng(cfg.seed);
    auto normal = [&](std::size_t at, std::size_t n, double std) { for (std::size_t i = 0; i < n; ++i) params_[at + i] = std * rng.normal(); };
    const double proj_std = 0.02 / std::sqrt(2.0 * double(L));
    normal(layout_.wte, V * C, 0.02);
    normal(layout_.wpe, cfg.t_max * C, 0.02);
    normal(layout_.qkvw, L * C * 3 * C, 0.02);
    normal(layout_.attprojw, L * C * C, proj_std);
    normal(layout_.fcw, L * C * 4 * C, 0.02);
    normal(layout_.fcprojw, L * 4 * C * C, proj_std);
    std::fill_n(params_.begin() + long(layout_.ln1w), L * C, 1.0);
    std::fill_n(params_.begin() + long(layout_.ln2w), L * C, 1.0);
    std::fill_n(params_.begin() + long(layout_.lnfw), C, 1.0);
}


std::vector<GptParamTensor> Gpt::param_tensors() const {
    const std::size_t V = cfg_.vocab, C = cfg_.C, L = cfg_.layers;
    const GptParamLayout& P = layout_;
    return {{"wte", P.wte, {V, C}},           {"wpe", P.wpe, {cfg_.t_max, C}},
            {"ln1w", P.ln1w, {L, C}},         {"ln1b", P.ln1b, {L, C}},
            {"qkvw", P.qkvw, {L, C, 3 * C}},  {"qkvb", P.qkvb, {L, 3 * C}},
            {"attprojw", P.attprojw, {L, C, C}}, {"attprojb", P.attprojb, {L, C}},
            {"ln2w", P.ln2w, {L, C}},         {"ln2b", P.ln2b, {L, C}},
            {"fcw", P.fcw, {L, C, 4 * C}},    {"fcb", P.fcb, {L, 4 * C}},
            {"fcprojw", P.fcprojw, {L, 4 * C, C}}, {"fcprojb", P.fcprojb, {L, C}},
            {"lnfw", P.lnfw, {C}},            {"lnfb", P.lnfb, {C}}};
}

// ---- forward ------------------------------------------------------------------------------------
double Gpt::forward(const std::vector<int>& tokens, const std::vector<int>& targets, std::size_t B, std::size_t T, bool keep_scores) {
    // (the trainer only passes valid batches: these guard the C++ API)
    const char* fn = "forward";
    if (B < 1) detail::to_index({fn, "B"}, 0, 1, kMaxElements);
    if (T < 1) detail::to_index({fn, "T"}, 0, 1, cfg_.t_max);
    if (T > cfg_.t_max) throw Error(ErrorCode::position_past_table, {{"fn", fn}, {"T", T}, {"tMax", cfg_.t_max}});
    for (const auto& [arg, ids] : {std::pair{"tokens", &tokens}, std::pair{"targets", &targets}}) {
        if (ids == &targets && ids->empty()) continue;
        if (ids->size() != B * T)
            throw Error(ErrorCode::length_range, {{"fn", fn}, {"arg", arg}, {"length", ids->size()}, {"min", B * T}, {"max", B * T}});
        for (std::size_t i = 0; i < ids->size(); ++i)
            if ((*ids)[i] < 0 || std::size_t((*ids)[i]) >= cfg_.vocab)
                detail::to_index({fn, std::string(arg) + "[" + std::to_string(i) + "]"}, (*ids)[i], 0, cfg_.vocab - 1);
    }
    const std::size_t V = cfg_.vocab, C = cfg_.C, L = cfg_.layers, NH = cfg_.heads, BT = B * T;
    B_ = B; T_ = T; tokens_ = tokens; targets_ = targets;
    GptActivations& a = acts_;
    auto size = [](std::vector<double>& v, std::size_t n) { v.assign(n, 0.0); };
    size(a.encoded, BT * C);
    size(a.ln1, L * BT * C); size(a.ln1_mean, L * BT); size(a.ln1_rstd, L * BT);
    size(a.qkv, L * BT * 3 * C); size(a.atty, L * BT * C); size(a.att, L * B * NH * T * T);
    if (keep_scores) size(a.scores, L * B * NH * T * T);
    else a.scores.clear();
    size(a.attproj, L * BT * C); size(a.residual2, L * BT * C);
    size(a.ln2, L * BT * C); size(a.ln2_mean, L * BT); size(a.ln2_rstd, L * BT);
    size(a.fch, L * BT * 4 * C); size(a.fch_gelu, L * BT * 4 * C); size(a.fcproj, L * BT * C); size(a.residual3, L * BT * C);
    size(a.lnf, BT * C); size(a.lnf_mean, BT); size(a.lnf_rstd, BT);
    size(a.logits, BT * V); size(a.probs, BT * V);
    const double* p = params_.data();
    const GptParamLayout& P = layout_;

    detail::encoder_forward(a.encoded.data(), tokens.data(), p + P.wte, p + P.wpe, B, T, C);   // (B, T, C)
    for (std::size_t l = 0; l < L; ++l) {
        // layer l's slices of the activations (shapes without the leading L)
        const double* residual = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * BT * C;   // (B, T, C)
        double* ln1 = a.ln1.data() + l * BT * C;                 // (B, T, C)
        double* ln1_mean = a.ln1_mean.data() + l * BT;           // (B, T)
        double* ln1_rstd = a.ln1_rstd.data() + l * BT;           // (B, T)
        double* qkv = a.qkv.data() + l * BT * 3 * C;             // (B, T, 3C)
        double* atty = a.atty.data() + l * BT * C;               // (B, T, C)
        double* att = a.att.data() + l * B * NH * T * T;         // (B, NH, T, T)
        double* scores = keep_scores ? a.scores.data() + l * B * NH * T * T : nullptr;   // (B, NH, T, T) or not kept
        double* attproj = a.attproj.data() + l * BT * C;         // (B, T, C)
        double* r2 = a.residual2.data() + l * BT * C;            // (B, T, C)
        double* ln2 = a.ln2.data() + l * BT * C;                 // (B, T, C)
        double* ln2_mean = a.ln2_mean.data() + l * BT;           // (B, T)
        double* ln2_rstd = a.ln2_rstd.data() + l * BT;           // (B, T)
        double* fch = a.fch.data() + l * BT * 4 * C;             // (B, T, 4C)
        double* fchg = a.fch_gelu.data() + l * BT * 4 * C;       // (B, T, 4C)
        double* fcproj = a.fcproj.data() + l * BT * C;           // (B, T, C)
        double* r3 = a.residual3.data() + l * BT * C;            // (B, T, C)
        detail::layernorm_forward(ln1, ln1_mean, ln1_rstd, residual, p + P.ln1w + l * C, p + P.ln1b + l * C, BT, C);
        detail::linear_forward(qkv, ln1, p + P.qkvw + l * C * 3 * C, p + P.qkvb + l * 3 * C, BT, C, 3 * C);
        detail::attention_forward(atty, att, scores, qkv, B, T, C, NH, cfg_.causal);
        detail::linear_forward(attproj, atty, p + P.attprojw + l * C * C, p + P.attprojb + l * C, BT, C, C);
        detail::residual_forward(r2, residual, attproj, BT * C);
        detail::layernorm_forward(ln2, ln2_mean, ln2_rstd, r2, p + P.ln2w + l * C, p + P.ln2b + l * C, BT, C);
        detail::linear_forward(fch, ln2, p + P.fcw + l * C * 4 * C, p + P.fcb + l * 4 * C, BT, C, 4 * C);
        detail::gelu_forward(fchg, fch, BT * 4 * C);
        detail::linear_forward(fcproj, fchg, p + P.fcprojw + l * 4 * C * C, p + P.fcprojb + l * C, BT, 4 * C, C);
        detail::residual_forward(r3, r2, fcproj, BT * C);
    }
    const double* last = a.residual3.data() + (L - 1) * BT * C;   // (B, T, C)
    detail::layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), last, p + P.lnfw, p + P.lnfb, BT, C);
    // the tied head: logits = lnf wte^T   (BT, C) x (C, V) -> (BT, V)
    detail::gemm_nt_acc(a.logits.data(), a.lnf.data(), p + P.wte, BT, C, V);
    detail::softmax_rows(a.probs.data(), a.logits.data(), BT, V);
    for (std::size_t i = 0; i < BT * V; ++i)
        if (!std::isfinite(a.logits[i]))   // the parameters have diverged
            throw Error(ErrorCode::overflow, {{"fn", fn}, {"quantity", "logits"}, {"formula", "lnf wte^T"}, {"value", a.logits[i]},
                                              {"index", std::vector<double>{double(i / (T * V)), double(i / V % T), double(i % V)}}});
    // loss = mean -ln probs[target]
    return targets.empty() ? std::numeric_limits<double>::quiet_NaN() : detail::crossentropy_forward(a.probs.data(), targets.data(), BT, V);
}

// ---- backward -----------------------------------------------------------------------------------
void Gpt::zero_grad() { std::fill(grads_.begin(), grads_.end(), 0.0); }

void Gpt::backward() {
    if (targets_.empty()) throw Error(ErrorCode::internal, {{"fn", "backward"}, {"detail", "backward needs a forward pass with targets first"}});
    const std::size_t V = cfg_.vocab, C = cfg_.C, L = cfg_.layers, NH = cfg_.heads, B = B_, T = T_, BT = B * T;
    const double* p = params_.data();
    double* g = grads_.data();
    const GptParamLayout& P = layout_;
    const GptActivations& a = acts_;
    // backward of loss = mean -ln softmax(logits)[target]
    std::vector<double> dlogits(BT * V);   // (B, T, V)
    detail::crossentropy_softmax_backward(dlogits.data(), a.probs.data(), targets_.data(), BT, V);
    // backward of the tied head logits = lnf wte^T: dlnf = dlogits wte, dwte += dlogits^T lnf
    std::vector<double> dlnf(BT * C, 0.0), dresidual(BT * C, 0.0);   // (B, T, C) each
    detail::gemm_acc(dlnf.data(), dlogits.data(), p + P.wte, BT, V, C);
    detail::gemm_tn_acc(g + P.wte, dlogits.data(), a.lnf.data(), BT, V, C);
    // backward of lnf = layernorm(residual3[L-1])
    detail::layernorm_backward(dresidual.data(), g + P.lnfw, g + P.lnfb, dlnf.data(), a.residual3.data() + (L - 1) * BT * C, p + P.lnfw,
                               a.lnf_mean.data(), a.lnf_rstd.data(), BT, C);
    // gradients of one layer's activations, reused from layer to layer
    std::vector<double> dln(BT * C), dfch(BT * 4 * C), dfchg(BT * 4 * C), dqkv(BT * 3 * C), datty(BT * C), dr2(BT * C);
    // dln, datty, dr2 (B, T, C); dfch, dfchg (B, T, 4C); dqkv (B, T, 3C); dresidual (B, T, C) carries the stream
    for (std::size_t l = L; l-- > 0;) {
        const double* residual = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * BT * C;
        // backward of residual3 = r2 + fcproj: both get dresidual
        std::copy(dresidual.begin(), dresidual.end(), dr2.begin());
        std::fill(dfchg.begin(), dfchg.end(), 0.0);
        detail::linear_backward(dfchg.data(), g + P.fcprojw + l * 4 * C * C, g + P.fcprojb + l * C, dresidual.data(),
                                a.fch_gelu.data() + l * BT * 4 * C, p + P.fcprojw + l * 4 * C * C, BT, 4 * C, C);
        std::fill(dfch.begin(), dfch.end(), 0.0);
        detail::gelu_backward(dfch.data(), a.fch.data() + l * BT * 4 * C, dfchg.data(), BT * 4 * C);
        std::fill(dln.begin(), dln.end(), 0.0);
        detail::linear_backward(dln.data(), g + P.fcw + l * C * 4 * C, g + P.fcb + l * 4 * C, dfch.data(), a.ln2.data() + l * BT * C,
                                p + P.fcw + l * C * 4 * C, BT, C, 4 * C);
        detail::layernorm_backward(dr2.data(), g + P.ln2w + l * C, g + P.ln2b + l * C, dln.data(), a.residual2.data() + l * BT * C,
                                   p + P.ln2w + l * C, a.ln2_mean.data() + l * BT, a.ln2_rstd.data() + l * BT, BT, C);
        // backward of r2 = residual + attproj: both get dr2
        std::copy(dr2.begin(), dr2.end(), dresidual.begin());
        std::fill(datty.begin(), datty.end(), 0.0);
        detail::linear_backward(datty.data(), g + P.attprojw + l * C * C, g + P.attprojb + l * C, dr2.data(), a.atty.data() + l * BT * C,
                                p + P.attprojw + l * C * C, BT, C, C);
        std::fill(dqkv.begin(), dqkv.end(), 0.0);
        detail::attention_backward(dqkv.data(), datty.data(), a.qkv.data() + l * BT * 3 * C, a.att.data() + l * B * NH * T * T, B, T, C,
                                   NH, cfg_.causal);
        std::fill(dln.begin(), dln.end(), 0.0);
        detail::linear_backward(dln.data(), g + P.qkvw + l * C * 3 * C, g + P.qkvb + l * 3 * C, dqkv.data(), a.ln1.data() + l * BT * C,
                                p + P.qkvw + l * C * 3 * C, BT, C, 3 * C);
        detail::layernorm_backward(dresidual.data(), g + P.ln1w + l * C, g + P.ln1b + l * C, dln.data(), residual, p + P.ln1w + l * C,
                                   a.ln1_mean.data() + l * BT, a.ln1_rstd.data() + l * BT, BT, C);
    }
    detail::encoder_backward(g + P.wte, g + P.wpe, dresidual.data(), tokens_.data(), B, T, C);
}

// ---- update -------------------------------------------------------------------------------------
void Gpt::adamw(double lr, double beta1, double beta2, double eps, double weight_decay) {
    ++step_;
    detail::adamw_update(params_.data(), grads_.data(), m_.data(), v_.data(), params_.size(), step_, lr, beta1, beta2, eps, weight_decay);
}

// ---- what the page inspects ---------------------------------------------------------------------
Tensor Gpt::logits() const {
    Tensor t = Tensor::from_shape({B_, T_, cfg_.vocab});
    std::copy(acts_.logits.begin(), acts_.logits.end(), t.begin());
    return t;
}

Tensor Gpt::attention(std::size_t layer) const {
    if (layer >= cfg_.layers) detail::to_index({"attention", "layer"}, double(layer), 0, cfg_.layers - 1);
    const std::size_t n = B_ * cfg_.heads * T_ * T_;
    Tensor t = Tensor::from_shape({B_, cfg_.heads, T_, T_});
    std::copy(acts_.att.begin() + long(layer * n), acts_.att.begin() + long((layer + 1) * n), t.begin());
    return t;
}

// ---- whole-model gradient check ----------------------------------------------------------------
GptGradcheck gpt_gradcheck(double seed) {
    GptConfig cfg;
    cfg.vocab = 7; cfg.C = 8; cfg.heads = 2; cfg.layers = 2; cfg.t_max = 4; cfg.seed = detail::to_seed({"gptGradcheck", "seed"}, seed);
    Gpt model(cfg);
    // larger weights than the 0.02 init, so that every path carries a visible gradient
    detail::Rng rng(seed + 1);
    for (double& p : model.params()) p += 0.3 * rng.normal();
    const std::size_t B = 2, T = 4;
    std::vector<int> x(B * T), y(B * T);
    for (std::size_t i = 0; i < B * T; ++i) { x[i] = int(rng.below(7)); y[i] = int(rng.below(7)); }
    model.forward(x, y, B, T);
    model.zero_grad();
    model.backward();
    // every parameter tensor is one input of the lab's gradcheck; the loss writes them back into the model
    const std::vector<GptParamTensor> tensors = model.param_tensors();
    std::vector<std::string> names;
    std::vector<Tensor> inputs, analytic;
    auto slice = [](const std::vector<double>& flat, const GptParamTensor& pt) {
        Tensor t = Tensor::from_shape(pt.shape);
        std::copy_n(flat.begin() + long(pt.offset), t.size(), t.begin());
        return t;
    };
    for (const GptParamTensor& pt : tensors) {
        names.push_back(pt.name);
        inputs.push_back(slice(model.params(), pt));
        analytic.push_back(slice(model.grads(), pt));
    }
    const auto loss = [&](const std::vector<Tensor>& in) {
        for (std::size_t k = 0; k < tensors.size(); ++k)
            std::copy(in[k].begin(), in[k].end(), model.params().begin() + long(tensors[k].offset));
        return model.forward(x, y, B, T);
    };
    const GradcheckResult g = detail::run_gradcheck(names, inputs, loss, analytic);
    GptGradcheck r{g.passed, 0.0, model.params().size(), g.inputs};
    for (const GradcheckInput& in : g.inputs) r.max_abs_error = std::max(r.max_abs_error, in.max_abs_error);
    return r;
}

}  // namespace attn
