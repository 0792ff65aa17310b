// libcurl's functions the symbol-server client calls, forwarded to libcurl.so.4 once it is loaded.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: each use gets a
// wrapper with fixed argument types that calls them.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "lazy_libraries.h"
#include "lazy_loader.h"

LAZY_LIBRARY(libcurl, "libcurl.so.4");

LAZY_FUNCTION(libcurl, CURLcode, curl_global_init, (long flags), (flags))
LAZY_FUNCTION(libcurl, CURL *, curl_easy_init, (void), ())
LAZY_VOID_FUNCTION(libcurl, curl_easy_cleanup, (CURL *handle), (handle))
LAZY_VOID_FUNCTION(libcurl, curl_easy_reset, (CURL *handle), (handle))
LAZY_FUNCTION(libcurl, CURLcode, curl_easy_perform, (CURL *handle), (handle))
LAZY_FUNCTION(libcurl, const char *, curl_easy_strerror, (CURLcode code), (code))
LAZY_FUNCTION(libcurl, struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *text), (list, text))
LAZY_VOID_FUNCTION(libcurl, curl_slist_free_all, (struct curl_slist *list), (list))

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_result = CURLE_OK;

static void global_init(void) { global_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

const char *yui_load_libcurl(void) {
    const char *error = lazy_library_load(&libcurl);
    if (error != NULL) return error;
    // curl_global_init is not thread-safe in every build of libcurl: once, before any handle.
    pthread_once(&global_once, global_init);
    return global_result == CURLE_OK ? NULL : "curl_global_init failed";
}

typedef CURLcode (*setopt_function)(CURL *, CURLoption, ...);
typedef CURLcode (*getinfo_function)(CURL *, CURLINFO, ...);

static setopt_function setopt(void) {
    static setopt_function function;
    setopt_function found = __atomic_load_n(&function, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = (setopt_function)lazy_library_symbol(&libcurl, "curl_easy_setopt");
        __atomic_store_n(&function, found, __ATOMIC_RELEASE);
    }
    return found;
}

static getinfo_function getinfo(void) {
    static getinfo_function function;
    getinfo_function found = __atomic_load_n(&function, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = (getinfo_function)lazy_library_symbol(&libcurl, "curl_easy_getinfo");
        __atomic_store_n(&function, found, __ATOMIC_RELEASE);
    }
    return found;
}

CURLcode yui_curl_set_long(CURL *handle, CURLoption option, long value) { return setopt()(handle, option, value); }

CURLcode yui_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) { return setopt()(handle, option, value); }

CURLcode yui_curl_set_text(CURL *handle, CURLoption option, const char *value) { return setopt()(handle, option, value); }

CURLcode yui_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) { return setopt()(handle, option, value); }

CURLcode yui_curl_set_write(CURL *handle, yui_curl_write_callback callback, void *context) {
    CURLcode result = setopt()(handle, CURLOPT_WRITEFUNCTION, callback);
    return result != CURLE_OK ? result : setopt()(handle, CURLOPT_WRITEDATA, context);
}

CURLcode yui_curl_get_long(CURL *handle, CURLINFO info, long *value) { return getinfo()(handle, info, value); }

CURLcode yui_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) { return getinfo()(handle, info, value); }
