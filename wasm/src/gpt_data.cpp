// The character GPT's data: a training text as Unicode code points, its sorted vocabulary and a
// 90/10 train/validation split; encoding and decoding between text and ids.
#include <algorithm>
#include <cmath>

#include "attn/gpt.hpp"
#include "internal.hpp"

namespace attn {

namespace {
std::vector<char32_t> utf8_decode(const std::string& s, std::string_view fn, std::string_view arg) {
    auto bad = [&](std::size_t at) { throw Error(ErrorCode::bad_utf8, {{"fn", fn}, {"arg", arg}, {"byte", at}}); };
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + std::size_t(n) > s.size()) bad(i);
        char32_t cp = n == 1 ? c : c & (0x7F >> n);
        for (int k = 1; k < n; ++k) {
            const unsigned char cc = static_cast<unsigned char>(s[i + std::size_t(k)]);
            if ((cc >> 6) != 2) bad(i);
            cp = (cp << 6) | (cc & 0x3F);
        }
        out.push_back(cp);
        i += std::size_t(n);
    }
    return out;
}
std::string utf8_encode(char32_t cp) {
    std::string s;
    if (cp < 0x80) s += char(cp);
    else if (cp < 0x800) { s += char(0xC0 | (cp >> 6)); s += char(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) { s += char(0xE0 | (cp >> 12)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F)); }
    else { s += char(0xF0 | (cp >> 18)); s += char(0x80 | ((cp >> 12) & 0x3F)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F)); }
    return s;
}
}  // namespace

CharData::CharData(const std::string& utf8, std::size_t t_max) {
    if (utf8.size() > kMaxBytes)
        throw Error(ErrorCode::text_too_large, {{"fn", "createModel"}, {"arg", "text"}, {"length", utf8.size()}, {"limit", kMaxBytes}});
    const std::vector<char32_t> text = utf8_decode(utf8, "createModel", "text");
    // both splits need a full window of t_max + 1 characters: 10 windows in all is the minimum
    const std::size_t need = 10 * (t_max + 1);
    if (text.size() < need)
        throw Error(ErrorCode::text_too_short, {{"fn", "createModel"}, {"arg", "text"}, {"length", text.size()}, {"min", need}, {"tMax", t_max}});
    chars_ = text;
    std::sort(chars_.begin(), chars_.end());
    chars_.erase(std::unique(chars_.begin(), chars_.end()), chars_.end());
    if (chars_.size() < 2 || chars_.size() > kMaxVocab)
        throw Error(ErrorCode::vocab_size, {{"fn", "createModel"}, {"arg", "text"}, {"vocab", chars_.size()}, {"min", 2}, {"max", kMaxVocab}});
    std::vector<int> ids(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
        ids[i] = int(std::lower_bound(chars_.begin(), chars_.end(), text[i]) - chars_.begin());
    const std::size_t n_train = text.size() * 9 / 10;
    train_.assign(ids.begin(), ids.begin() + long(n_train));
    val_.assign(ids.begin() + long(n_train), ids.end());
}

std::vector<int> CharData::encode(const std::string& utf8, std::string_view fn, std::string_view arg) const {
    std::vector<int> ids;
    for (char32_t cp : utf8_decode(utf8, fn, arg)) {
        auto it = std::lower_bound(chars_.begin(), chars_.end(), cp);
        if (it == chars_.end() || *it != cp)
            throw Error(ErrorCode::char_not_in_vocab, {{"fn", fn}, {"arg", arg}, {"character", utf8_encode(cp)}});
        ids.push_back(int(it - chars_.begin()));
    }
    return ids;
}

std::string CharData::decode(const std::vector<int>& ids) const {
    std::string s;
    for (int id : ids) s += utf8_encode(chars_[std::size_t(id)]);
    return s;
}

double CharData::unigram_entropy() const {
    std::vector<double> count(chars_.size(), 0.0);
    for (int id : train_) count[std::size_t(id)] += 1.0;
    double h = 0.0;
    for (double c : count)
        if (c > 0) { const double p = c / double(train_.size()); h -= p * std::log(p); }
    return h;
}

}  // namespace attn
