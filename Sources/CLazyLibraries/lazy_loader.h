#pragma once
// One library opened on first use, its functions looked up on first call.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct lazy_library {
    const char *soname;
    pthread_once_t once;
    void *handle;
    char *error;
};

#define LAZY_LIBRARY(name, so) \
    static struct lazy_library name = {.soname = so, .once = PTHREAD_ONCE_INIT, .handle = NULL, .error = NULL}

const char *lazy_library_load(struct lazy_library *library);
void *lazy_library_symbol(struct lazy_library *library, const char *symbol);

// Defines `ret name params` to call the library's `name` with `args`. The function's address is
// looked up once; the compiler checks each definition against the library's own header.
#define LAZY_FUNCTION(library, ret, name, params, args)                                     \
    ret name params {                                                                       \
        static ret(*function) params;                                                       \
        ret(*found) params = __atomic_load_n(&function, __ATOMIC_ACQUIRE);                  \
        if (found == NULL) {                                                                \
            found = (ret(*) params)lazy_library_symbol(&library, #name);                    \
            __atomic_store_n(&function, found, __ATOMIC_RELEASE);                           \
        }                                                                                   \
        return found args;                                                                  \
    }

// As LAZY_FUNCTION for a function that returns nothing.
#define LAZY_VOID_FUNCTION(library, name, params, args)                                     \
    void name params {                                                                      \
        static void(*function) params;                                                      \
        void(*found) params = __atomic_load_n(&function, __ATOMIC_ACQUIRE);                 \
        if (found == NULL) {                                                                \
            found = (void(*) params)lazy_library_symbol(&library, #name);                   \
            __atomic_store_n(&function, found, __ATOMIC_RELEASE);                           \
        }                                                                                   \
        found args;                                                                         \
    }
