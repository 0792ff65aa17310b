// libpq's functions the RowStore module calls, forwarded to libpq.so.5 once it is loaded.
// Debian puts libpq-fe.h in /usr/include/postgresql (pkg-config would add it to the path).
#include <postgresql/libpq-fe.h>

#include "lazy_libraries.h"
#include "lazy_loader.h"

LAZY_LIBRARY(libpq, "libpq.so.5");

const char *yui_load_libpq(void) { return lazy_library_load(&libpq); }

LAZY_FUNCTION(libpq, PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand_dbname),
              (keywords, values, expand_dbname))
LAZY_FUNCTION(libpq, ConnStatusType, PQstatus, (const PGconn *conn), (conn))
LAZY_FUNCTION(libpq, char *, PQerrorMessage, (const PGconn *conn), (conn))
LAZY_FUNCTION(libpq, int, PQsocket, (const PGconn *conn), (conn))
LAZY_FUNCTION(libpq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg),
              (conn, proc, arg))
LAZY_FUNCTION(libpq, PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))
LAZY_FUNCTION(libpq, PGresult *, PQexecParams,
              (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
               const int *paramLengths, const int *paramFormats, int resultFormat),
              (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
LAZY_FUNCTION(libpq, int, PQsendQuery, (PGconn *conn, const char *query), (conn, query))
LAZY_FUNCTION(libpq, int, PQsendQueryParams,
              (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
               const int *paramLengths, const int *paramFormats, int resultFormat),
              (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
LAZY_FUNCTION(libpq, PGresult *, PQgetResult, (PGconn *conn), (conn))
LAZY_FUNCTION(libpq, int, PQisBusy, (PGconn *conn), (conn))
LAZY_FUNCTION(libpq, int, PQconsumeInput, (PGconn *conn), (conn))
LAZY_FUNCTION(libpq, int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes))
LAZY_FUNCTION(libpq, int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg))
LAZY_FUNCTION(libpq, ExecStatusType, PQresultStatus, (const PGresult *res), (res))
LAZY_FUNCTION(libpq, char *, PQresultErrorMessage, (const PGresult *res), (res))
LAZY_FUNCTION(libpq, char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
LAZY_FUNCTION(libpq, int, PQntuples, (const PGresult *res), (res))
LAZY_FUNCTION(libpq, int, PQnfields, (const PGresult *res), (res))
LAZY_FUNCTION(libpq, char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
LAZY_FUNCTION(libpq, int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
LAZY_FUNCTION(libpq, char *, PQcmdTuples, (PGresult *res), (res))

LAZY_VOID_FUNCTION(libpq, PQclear, (PGresult *res), (res))
LAZY_VOID_FUNCTION(libpq, PQfinish, (PGconn *conn), (conn))
