// simdjson's DOM parser over a list of files (JSON Lines line by line), one reused parser, parse
// only: the measurement behind the choice of our own JSON parser (docs/speed.md, "Our own
// JSON parser"). Not part of the build or of bench/run; to repeat it:
//
//   apt-get install libsimdjson-dev
//   g++ -O3 -march=native bench/simdjson-parse.cpp -lsimdjson -o /tmp/simdjson-parse
//   perf stat -r 10 /tmp/simdjson-parse bench/work/real-corpus/*      (CPU: "task-clock")
#include <simdjson.h>
#include <cstdio>
#include <cstring>
#include <string>
int main(int argc, char **argv) {
    simdjson::dom::parser parser;
    size_t total = 0, values = 0;
    for (int a = 1; a < argc; a++) {
        simdjson::padded_string text;
        if (simdjson::padded_string::load(argv[a]).get(text)) { fprintf(stderr, "cannot read %s\n", argv[a]); return 1; }
        total += text.size();
        size_t n = strlen(argv[a]);
        if (n > 6 && strcmp(argv[a] + n - 6, ".jsonl") == 0) {
            const char *p = text.data(), *end = p + text.size();
            while (p < end) {
                const char *nl = (const char *)memchr(p, '\n', end - p);
                if (!nl) nl = end;
                if (nl > p) { simdjson::dom::element e; if (parser.parse(p, nl - p, true).get(e)) return 2; values++; }
                p = nl + 1;
            }
        } else {
            simdjson::dom::element e;
            if (parser.parse(text).get(e)) { fprintf(stderr, "bad %s\n", argv[a]); return 2; }
            values++;
        }
    }
    printf("%zu bytes, %zu values\n", total, values);
}
