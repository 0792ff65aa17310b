#pragma once
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <elfutils/libdwelf.h>
#include <elfutils/version.h>
#include <libelf.h>
#include <gelf.h>
#include <dwarf.h>
