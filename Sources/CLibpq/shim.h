#pragma once
// Debian puts libpq-fe.h in /usr/include/postgresql (pkg-config would add it to the path).
#include <postgresql/libpq-fe.h>
