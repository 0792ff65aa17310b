#pragma once
// libpq and libarchive are loaded when a command first needs them (`load`, `report --db`,
// `top --db`; `dsyms import` of a zip), not when the process starts: with their dependencies they
// are thirty shared libraries, about 5 ms of every start-up (docs/speed.md, "Start-up").
//
// The functions below load a library if it is not loaded yet and return NULL, or the dynamic
// loader's message when it cannot be loaded; call one before any function of that library.

const char *yui_load_libpq(void);
const char *yui_load_libarchive(void);
