#pragma once
// Type checks of curl_easy_setopt's arguments are macros over a variadic function, which Swift
// cannot call: CLazyLibraries gives typed wrappers instead (yui_curl_set_*).
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
