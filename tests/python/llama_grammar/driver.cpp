// llama.cpp's grammar engine without a model (issue 36, P304): its grammar
// parser and matcher (src/llama-grammar.cpp of the llama.cpp sources that the
// llama-cpp-python source package ships, compiled into this unit so its
// internal helpers are reachable), driven over a byte vocabulary the way
// llama_grammar_apply_impl and llama_grammar_accept_impl drive it over a
// model's vocabulary. grammar_engines.py loads it with ctypes.
#include "llama-grammar.cpp"

#include <cstdarg>

// The few symbols of the rest of llama.cpp that the grammar unit names; with
// no vocabulary they are never reached.
void llama_log_internal(ggml_log_level, const char *, ...) {}
const std::string & llama_vocab::token_to_piece(llama_token) const { throw std::runtime_error("no vocabulary"); }
bool llama_vocab::is_eog(llama_token) const { return false; }
int32_t llama_vocab::tokenize(const char *, int32_t, llama_token *, int32_t, bool, bool) const { return 0; }
extern "C" void ggml_abort(const char *, int, const char *, ...) { std::abort(); }

extern "C" {

// A grammar from GBNF text, start rule `root`; NULL when llama.cpp refuses it.
void * lg_new(const char * text) {
    try {
        return llama_grammar_init_impl(nullptr, text, "root", false, nullptr, 0, nullptr, 0);
    } catch (...) {
        return nullptr;
    }
}

void * lg_clone(void * g) { return llama_grammar_clone_impl(*static_cast<llama_grammar *>(g)); }

void lg_free(void * g) { llama_grammar_free_impl(static_cast<llama_grammar *>(g)); }

// out[b] = 1 when byte b (a one-byte token) is allowed next; out[256] when
// the end of generation is (a stack is done).
void lg_mask(void * gp, unsigned char * out) {
    const llama_grammar & g = *static_cast<llama_grammar *>(gp);
    out[256] = 0;
    for (const auto & stack : g.stacks) {
        if (stack.empty()) {
            out[256] = 1;
        }
    }
    std::vector<std::pair<std::vector<uint32_t>, llama_partial_utf8>> decoded;
    decoded.reserve(256);
    llama_grammar_candidates candidates;
    for (int b = 0; b < 256; ++b) {
        out[b] = 0;
        if (b == 0) {
            continue; // a piece starting with NUL is refused (apply_impl)
        }
        decoded.push_back(decode_utf8(std::string(1, static_cast<char>(b)), g.partial_utf8));
    }
    for (int b = 1; b < 256; ++b) {
        candidates.push_back({static_cast<size_t>(b), decoded[b - 1].first.data(), decoded[b - 1].second, b});
        out[b] = 1;
    }
    for (const auto & reject : llama_grammar_reject_candidates(g.rules, g.stacks, candidates)) {
        out[reject.index] = 0;
    }
}

// Takes byte b; 0 when the grammar refuses it.
int lg_accept(void * gp, int b) {
    try {
        llama_grammar_accept_str(*static_cast<llama_grammar *>(gp), std::string(1, static_cast<char>(b)));
        return 1;
    } catch (...) {
        return 0;
    }
}
}
