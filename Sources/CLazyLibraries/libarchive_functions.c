// libarchive's functions `dsyms import` calls for zip files, forwarded to libarchive.so.13 once it
// is loaded.
#include <archive.h>
#include <archive_entry.h>

#include "lazy_libraries.h"
#include "lazy_loader.h"

LAZY_LIBRARY(libarchive, "libarchive.so.13");

const char *yui_load_libarchive(void) { return lazy_library_load(&libarchive); }

LAZY_FUNCTION(libarchive, struct archive *, archive_read_new, (void), ())
LAZY_FUNCTION(libarchive, int, archive_read_support_format_zip, (struct archive *a), (a))
LAZY_FUNCTION(libarchive, int, archive_read_open_filename, (struct archive *a, const char *filename, size_t block_size),
              (a, filename, block_size))
LAZY_FUNCTION(libarchive, int, archive_read_next_header, (struct archive *a, struct archive_entry **entry), (a, entry))
LAZY_FUNCTION(libarchive, la_ssize_t, archive_read_data, (struct archive *a, void *buffer, size_t size), (a, buffer, size))
LAZY_FUNCTION(libarchive, int, archive_read_data_into_fd, (struct archive *a, int fd), (a, fd))
LAZY_FUNCTION(libarchive, int, archive_read_free, (struct archive *a), (a))
LAZY_FUNCTION(libarchive, const char *, archive_error_string, (struct archive *a), (a))
LAZY_FUNCTION(libarchive, __LA_MODE_T, archive_entry_filetype, (struct archive_entry *entry), (entry))
LAZY_FUNCTION(libarchive, const char *, archive_entry_hardlink, (struct archive_entry *entry), (entry))
LAZY_FUNCTION(libarchive, const char *, archive_entry_pathname, (struct archive_entry *entry), (entry))
LAZY_FUNCTION(libarchive, la_int64_t, archive_entry_size, (struct archive_entry *entry), (entry))
