// "Check my numbers" as JS calls it: the inputs, the quantity and the student's resolution read
// from options by their declarations (attn/diagnose.hpp, diagnose_option_set()).
#include <map>

#include "attn/diagnose.hpp"
#include "internal.hpp"

namespace attn {

namespace {
constexpr const char* kFn = "diagnose";
constexpr OptionSpec kX{"x", OptionKind::tensor, "causalAverage: (T, C) or (B, T, C); attention, positions: (B, T, C)"};
constexpr OptionSpec kWq{"wq", OptionKind::tensor, "attention, positions: the query projection (C, D), math layout"};
constexpr OptionSpec kWk{"wk", OptionKind::tensor, "attention, positions: the key projection (C, D), math layout"};
constexpr OptionSpec kWv{"wv", OptionKind::tensor, "attention, positions: the value projection (C, D), math layout"};
constexpr OptionSpec kHeads{"heads", OptionKind::integer, "attention, positions: the number of heads (default 1)"};
constexpr OptionSpec kCausal{"causal", OptionKind::boolean, "attention, positions, sdpaBackward: the causal mask (default true)"};
constexpr OptionSpec kMemory{"memory", OptionKind::tensor, "attention: the encoder's output (B, Tin, C) for cross-attention"};
constexpr OptionSpec kScores{"scores", OptionKind::tensor, "softmax: the scores (..., T, T), causally masked"};
constexpr OptionSpec kPos{"pos", OptionKind::tensor, "positions: the position table (T, C) added to x"};
constexpr OptionSpec kQ{"q", OptionKind::tensor, "sdpaBackward: the queries (..., T, d)"};
constexpr OptionSpec kK{"k", OptionKind::tensor, "sdpaBackward: the keys (..., T, d)"};
constexpr OptionSpec kV{"v", OptionKind::tensor, "sdpaBackward: the values (..., T, dv)"};
constexpr OptionSpec kGradOut{"gradOut", OptionKind::tensor, "sdpaBackward: the gradient of the loss by the output"};
constexpr OptionSpec kWeights{"weights", OptionKind::tensor, "dropout: the attention weights (..., T, T)"};
constexpr OptionSpec kKeep{"keep", OptionKind::tensor, "dropout: the keep mask, 1 kept and 0 dropped, the weights' shape"};
constexpr OptionSpec kP{"p", OptionKind::number, "dropout: the probability that an entry is dropped, in [0, 1)"};
constexpr OptionSpec kTraining{"training", OptionKind::boolean,
                               "dropout: true (the default): training, the kept weights scaled by 1 / (1 - p); false: evaluation, the identity"};
constexpr const char* kQuantities[] = {"out", "weights", "scores"};
constexpr OptionSpec kQuantity{"quantity", OptionKind::choice, "attention: what the student gave: 'out' (the default), 'weights' or 'scores'",
                               kQuantities};
constexpr const char* kGradients[] = {"dq", "dk", "dv"};
constexpr OptionSpec kGradient{"gradient", OptionKind::choice, "sdpaBackward: which gradient the student gave: 'dq' (the default), 'dk' or 'dv'",
                               kGradients};
constexpr OptionSpec kResolution{"resolution", OptionKind::tensor,
                                 "half a unit of the last printed digit of each of the student's values (parse-tensor.js); left out: exact"};
}  // namespace

const OptionSet& diagnose_option_set() {
    static const OptionSet set{&kX, &kWq, &kWk, &kWv, &kHeads, &kCausal, &kMemory, &kScores, &kPos, &kQ, &kK, &kV, &kGradOut, &kWeights, &kKeep, &kP, &kTraining, &kQuantity, &kGradient, &kResolution};
    return set;
}

Diagnosis diagnose(const std::string& check, const Tensor& student, const Options& opts) {
    Tensor resolution = xt::zeros<double>({std::size_t(0)});
    const DiagnoseInputs in = detail::read_options(opts, kFn, diagnose_option_set(), [&](detail::OptionReader& r) {
        DiagnoseInputs d;
        auto take = [&r](const OptionSpec& o, Tensor& into) {
            const Tensor* t = r.tensor(o);
            if (t) into = *t;
            return t != nullptr;
        };
        take(kX, d.x);
        take(kWq, d.wq);
        take(kWk, d.wk);
        take(kWv, d.wv);
        d.heads = r.index(kHeads, 1, 1, 1 << 20);
        d.causal = r.boolean(kCausal, true);
        d.has_memory = take(kMemory, d.memory);
        take(kScores, d.scores);
        take(kPos, d.pos);
        take(kQ, d.q);
        take(kK, d.k);
        take(kV, d.v);
        take(kGradOut, d.grad_out);
        take(kWeights, d.weights);
        take(kKeep, d.keep);
        d.p = r.number(kP, 0.0);   // its range: the dropout check's (diagnose.cpp)
        d.training = r.boolean(kTraining, true);
        d.quantity = r.choice(kQuantity, "");
        const std::string gradient = r.choice(kGradient, "");
        if (check == "sdpaBackward") d.quantity = gradient;
        take(kResolution, resolution);
        return d;
    });
    // what each check needs, named when it is missing
    const std::map<std::string, std::vector<const OptionSpec*>> needs = {
        {"causalAverage", {&kX}}, {"softmax", {&kScores}}, {"attention", {&kX, &kWq, &kWk, &kWv}},
        {"positions", {&kX, &kWq, &kWk, &kWv, &kPos}}, {"sdpaBackward", {&kQ, &kK, &kV, &kGradOut}},
        {"dropout", {&kWeights, &kKeep, &kP}}};
    const auto it = needs.find(check);
    if (it != needs.end())
        for (const OptionSpec* o : it->second)
            if (!opts.count(o->name))
                throw Error(ErrorCode::missing, {{"fn", kFn}, {"arg", std::string("opts.") + o->name}, {"expectedType", o->kind == OptionKind::number ? "number" : "tensor"}, {"layout", ""}});
    return diagnose(check, in, student, resolution);
}

}  // namespace attn
