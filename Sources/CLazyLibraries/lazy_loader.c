#include "lazy_loader.h"

#include <string.h>

static struct lazy_library *loading;
static pthread_mutex_t loading_lock = PTHREAD_MUTEX_INITIALIZER;

static void open_library(void) {
    struct lazy_library *library = loading;
    library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (library->handle == NULL) {
        const char *message = dlerror();
        library->error = strdup(message != NULL ? message : library->soname);
    }
}

const char *lazy_library_load(struct lazy_library *library) {
    // pthread_once takes no argument: the library being opened is passed through `loading`,
    // under a lock so two libraries opened at once do not mix.
    pthread_mutex_lock(&loading_lock);
    loading = library;
    pthread_once(&library->once, open_library);
    pthread_mutex_unlock(&loading_lock);
    return library->error;
}

void *lazy_library_symbol(struct lazy_library *library, const char *symbol) {
    const char *error = lazy_library_load(library);
    void *address = error == NULL ? dlsym(library->handle, symbol) : NULL;
    if (address == NULL) {
        // The Swift side calls yui_load_* first and reports a failure as an error of the command;
        // reaching here means a library without a function its header declares.
        fprintf(stderr, "payload-tool: cannot use %s from %s: %s\n", symbol, library->soname, error != NULL ? error : dlerror());
        abort();
    }
    return address;
}
