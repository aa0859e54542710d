// The parts of the boundary that do not depend on a single entry point (wire.hpp): the table's
// description for JS (its options merged per row, its results' declarations), running an entry
// with arguments in the core's types, and the error writer.
#include <algorithm>
#include <cstdio>

#include "wire.hpp"

namespace attn::wire {

const char* kind_name(Kind k) {
    switch (k) {
#define ATTN_X(kind) case Kind::kind: return #kind;
        ATTN_ARG_KINDS(ATTN_X)
#undef ATTN_X
    }
    return "";
}

const char* result_kind_name(ResultKind k) {
    switch (k) {
#define ATTN_X(kind) case ResultKind::kind: return #kind;
        ATTN_RESULT_KINDS(ATTN_X)
#undef ATTN_X
    }
    return "";
}

static const char* role_name(Role r) {
    switch (r) {
#define ATTN_X(role) case Role::role: return #role;
        ATTN_ROLES(ATTN_X)
#undef ATTN_X
    }
    return "";
}

void Args::internal_error(std::size_t i) const {
    throw Error(ErrorCode::internal, {{"fn", entry.name}, {"detail", "argument " + std::to_string(i) + " does not match the table"}});
}

void write(Writer& w, const Error& e) {
    w.begin().key("code").string(e.code_name()).key("message").string(e.what()).key("params").begin();
    for (const ErrorParam& p : e.params()) {
        w.key(p.name);
        if (auto d = std::get_if<double>(&p.value)) w.number(*d);
        else if (auto s = std::get_if<std::string>(&p.value)) w.string(*s);
        else if (auto v = std::get_if<std::vector<double>>(&p.value)) w.numbers(*v);
        else {
            w.begin_list();
            for (const std::string& x : std::get<std::vector<std::string>>(p.value)) w.string(x);
            w.end_list();
        }
    }
    w.end().end();
}

const Entry* find(const std::string& name) {
    for (const Entry& e : entries())
        if (name == e.name) return &e;
    return nullptr;
}

Arg default_arg(const Entry& e, std::size_t i) {
    const ArgSpec& a = e.args[i];
    if (a.kind == Kind::options) return Options{};
    if (a.has_default) return a.fallback;
    throw Error(ErrorCode::wrong_type, {{"fn", e.name}, {"arg", a.name}, {"expectedType", kind_name(a.kind)}, {"gotType", "undefined"}});
}

void run(const Entry& e, std::vector<Arg> args, Writer& w) {
    for (std::size_t i = args.size(); i < e.args.size(); ++i) args.push_back(default_arg(e, i));   // what JS would leave undefined
    e.run(Args{e, std::move(args)}, w);
}

namespace {
// JSON text: names and documentation are plain ASCII without quotes or backslashes, but escape anyway
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += char(c); }
        else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
        else out += char(c);
    }
    return out + "\"";
}
template <class Items, class F>
std::string joined(const Items& items, F&& item, char open, char close) {
    std::string out(1, open);
    for (const auto& x : items) out += (out.size() > 1 ? "," : "") + item(x);
    return out + close;
}

// A result's declaration: {kind, fields?: [{name, optional?, doc?, omittedBy?: {option, value}, ...its type}], of?, value?}
std::string type_json(const Type& t) {
    std::string s = "\"kind\":" + quoted(result_kind_name(t.kind));
    if (t.kind == ResultKind::object || t.kind == ResultKind::model)
        s += ",\"fields\":" + joined(t.fields, [](const Field& f) {
            std::string d = "{\"name\":" + quoted(f.name);
            if (f.optional) d += ",\"optional\":true";
            if (*f.doc) d += ",\"doc\":" + quoted(f.doc);
            if (*f.omitted_option)
                d += ",\"omittedBy\":{\"option\":" + quoted(f.omitted_option) + ",\"value\":" + quoted(f.omitted_value) + "}";
            return d + "," + type_json(f.type) + "}";
        }, '[', ']');
    if (t.kind == ResultKind::array || t.kind == ResultKind::record) s += ",\"of\":{" + type_json(t.of.at(0)) + "}";
    if (t.kind == ResultKind::oneOf) s += ",\"of\":" + joined(t.of, [](const Type& a) { return "{" + type_json(a) + "}"; }, '[', ']');
    if (t.kind == ResultKind::literal) s += ",\"value\":" + quoted(t.value);
    return s;
}

// A row's options as JS sees them: every set's options once, in the order they first appear. An
// option of several sets allows every set's values, is required only where every set requires it,
// and where the sets document it differently its doc says which is which ("kind 'sdpa': ...; ...").
std::string option_json(const std::vector<OptionVariant>& variants, const OptionSpec& o) {
    std::vector<std::string> values, docs;
    std::vector<const OptionVariant*> with;   // the variants that have it
    bool required = true;
    for (const OptionVariant& v : variants) {
        const auto it = std::find_if(v.set->begin(), v.set->end(), [&](const OptionSpec* x) { return std::string(x->name) == o.name; });
        required = required && it != v.set->end() && (*it)->required;
        if (it == v.set->end()) continue;
        for (const char* c : (*it)->values)
            if (std::find(values.begin(), values.end(), c) == values.end()) values.push_back(c);
        with.push_back(&v);
        docs.push_back((*it)->doc);
    }
    std::string doc = docs.front();
    if (std::any_of(docs.begin(), docs.end(), [&](const std::string& d) { return d != docs.front(); })) {
        doc.clear();
        for (std::size_t i = 0; i < docs.size(); ++i) {   // each doc once, after the variants that have it
            if (std::find(docs.begin(), docs.begin() + long(i), docs[i]) != docs.begin() + long(i)) continue;
            std::string whens;
            for (std::size_t j = i; j < docs.size(); ++j)
                if (docs[j] == docs[i]) whens += (whens.empty() ? "" : ", ") + with[j]->when;
            doc += (doc.empty() ? "" : "; ") + whens + ": " + docs[i];
        }
    }
    std::string d = "{\"name\":" + quoted(o.name) + ",\"kind\":" + quoted(option_kind_name(o.kind));
    if (!values.empty()) d += ",\"values\":" + joined(values, [](const std::string& v) { return quoted(v); }, '[', ']');
    if (required) d += ",\"required\":true";
    return d + ",\"doc\":" + quoted(doc) + "}";
}

std::string options_json(const std::vector<OptionVariant>& variants) {
    std::vector<const OptionSpec*> first;
    for (const OptionVariant& v : variants)
        for (const OptionSpec* o : *v.set)
            if (std::none_of(first.begin(), first.end(), [&](const OptionSpec* f) { return std::string(f->name) == o->name; })) first.push_back(o);
    return joined(first, [&](const OptionSpec* o) { return option_json(variants, *o); }, '[', ']');
}

std::string arg_json(const ArgSpec& a) {
    std::string d = "{\"name\":" + quoted(a.name) + ",\"kind\":" + quoted(kind_name(a.kind));
    if (a.has_default) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", a.fallback);
        d += std::string(",\"default\":") + buf;
    }
    return d + "}";
}

}  // namespace

namespace {
// the wire's tags and slots, and each row's name, arguments and role, in the table's order
std::string wire_head(bool full) {
    std::string s = "{\"tags\":{";
    int i = 0;
#define ATTN_X(t) s += std::string(i ? "," : "") + "\"" #t "\":" + std::to_string(i); ++i;
    ATTN_WIRE_TAGS(ATTN_X)
#undef ATTN_X
    s += "},\"slots\":{";
    i = 0;
#define ATTN_X(t) s += std::string(i ? "," : "") + "\"" #t "\":" + std::to_string(i); ++i;
    ATTN_WIRE_SLOTS(ATTN_X)
#undef ATTN_X
    s += "},\"functions\":";
    s += joined(entries(), [full](const Entry& e) {
        std::string row = "{\"name\":" + quoted(e.name) + ",\"args\":" + joined(e.args, arg_json, '[', ']');
        if (full)
            row += ",\"options\":" + options_json(e.options()) + ",\"doc\":" + quoted(e.doc) + ",\"returns\":{" + type_json(e.returns()) + "}";
        return row + ",\"role\":" + quoted(role_name(e.role)) + "}";
    }, '[', ']');
    return s;
}
}  // namespace

std::string wire_json() { return wire_head(false) + "}"; }

std::string describe_json() {
    std::string s = wire_head(true);
    s += ",\"errorCodes\":" + joined(error_codes(), [](const ErrorCodeInfo& c) {
        return quoted(c.name) + ":" + joined(c.params, [](const char* p) { return quoted(p); }, '[', ']');
    }, '{', '}');
    s += ",\"errorParams\":" + joined(error_params(), [](const ErrorParamInfo& p) { return quoted(p.name) + ":" + quoted(attn::kind_name(p.kind)); }, '{', '}');
    return s + "}";
}

#ifndef __EMSCRIPTEN__
MemoryStats memory_stats() { return {0, 0, 0}; }   // natively there is no WebAssembly instance to measure
#endif

}  // namespace attn::wire
