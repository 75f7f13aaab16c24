# burnlink: self-destructing secret links as CGI programs.
# `make` builds, `make run` serves on 127.0.0.1:$(PORT), `make check` tests.

PORT     ?= 8080
SERVER   ?= lighttpd
# sqlite | postgres: the database of `make run` and `make bench`.
BACKEND  ?= sqlite
PREFIX   ?= /srv/burnlink
DESTDIR  ?=
BUILD    ?= build

CC       ?= cc
WARN      = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
            -Wwrite-strings -Werror
CFLAGS   ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Ilib
# Static linking: a CGI program pays its dynamic relocations on every request
# (about 3 ms dynamically linked against OpenSSL, SQLite and json-c, 0.3 ms static).
LDSTATIC ?= -static
LIBS      = -lfcgi -lssl -lcrypto -lsqlite3 -ljson-c -lpthread -ldl -lm
# Each function and object in a section of its own, and the linker drops the
# sections a program never reaches: metadata no longer carries create's
# encryption and with it most of OpenSSL (text 5.6 -> 2.5 MB). A process maps
# and faults in less, which costs on every request (docs/PERFORMANCE.md).
SECTIONS  = -ffunction-sections -fdata-sections
GCSECTIONS = -Wl,--gc-sections
# The CGI programs confine themselves with seccomp (lib/sandbox.c), with
# BPF built at compile time by scripts/seccomp-gen.c (linked with libseccomp)
# into $(BUILD)/seccomp_bpf.h; the programs themselves do not link libseccomp.
# `make SECCOMP=0` builds without it, for platforms that lack libseccomp.
SECCOMP  ?= 1
ifeq ($(SECCOMP),0)
CPPFLAGS += -DBL_NO_SECCOMP
endif

# The PostgreSQL backend (lib/store_pg.c, for BURNLINK_DB=postgresql://...):
# `make PG=1`, or `make pg` for a copy in build/pg/. Debian's libpq.a needs
# GSSAPI and LDAP libraries that Debian ships only as shared objects, so these
# programs link dynamically (INSTALL, "Several web servers": the cost).
PG       ?= 0
ifeq ($(PG),1)
BUILD    := $(if $(filter build,$(BUILD)),build/pg-obj,$(BUILD))
CPPFLAGS += -DBL_HAVE_PG $(shell pkg-config --cflags libpq)
LIBS     += -lpq
LDSTATIC  =
LIB_SRC  = $(wildcard lib/*.c)
else
LIB_SRC  = $(filter-out lib/store_pg.c,$(wildcard lib/*.c))
endif
LIB_OBJ  = $(LIB_SRC:lib/%.c=$(BUILD)/lib/%.o)
LIBA     = $(BUILD)/libburnlink.a
# The routes' digest (ROUTES_DIGEST, scripts/routes-gen.c) compiled into every
# program: it compares it with the BURNLINK_ROUTES the web server's generated
# configuration passes (GET /api/health, burnlink-admin check). The library
# holds only a weak reference (lib/route.c), so that routes-gen, which links
# the library, and the unit tests link without it.
DIGEST_O = $(BUILD)/digest.o
# The tarball's multi-call binary and stub (x86-64 Linux: see `dist` below).
ifeq ($(shell uname -m)-$(PG),x86_64-0)
MULTI = $(BUILD)/dist/burnlink-programs $(BUILD)/dist/stub
endif
CGI_SRC  = $(wildcard cgi-bin/*.c)
# BIN is where programs go: empty for the tree itself, build/asan/ for the
# sanitizer build (the tests run either through BURNLINK_BIN).
BIN      ?=
CGI_BIN  = $(CGI_SRC:%.c=$(BIN)%)
CRON_SRC = $(wildcard cron/*.c)
CRON_BIN = $(CRON_SRC:%.c=$(BIN)%)
TOOL_SRC = $(wildcard tools/*.c)
TOOL_BIN = $(TOOL_SRC:%.c=$(BIN)%)
UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: FORCE all one programs units limits routes dyn deps run check test-unit test-cgi test-http test-cli test-browser \
        test-i18n test-asan test-valgrind test-pg asan pg install dist deb clean screenshots bench profile fuzz

all: deps
	@$(MAKE) --no-print-directory programs $(QRCODE) $(BUILD)/limits-gen routes $(MULTI)
	@DEFAULT_LANGUAGE="$(DEFAULT_LANGUAGE)" LANGUAGES="$(LANGUAGES)" sh scripts/i18n-index.sh

# The page's languages: www/assets/i18n/index.json lists the catalogues
# (git-ignored, rewritten by every make); the operator may set the default
# language and the offered ones (docs/PAGE.md, INSTALL).
DEFAULT_LANGUAGE ?= en
LANGUAGES ?=

# The page's QR-code library (npm, pinned by package-lock.json), served from
# www/ (git-ignored). Without npm the page still works, without QR codes.
QRCODE = www/assets/vendor/qrcode.js
$(QRCODE): package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	    { [ -f node_modules/qrcode-generator/dist/qrcode.js ] && [ node_modules -nt package-lock.json ]; } || \
	        npm ci --no-audit --no-fund --loglevel=error; \
	    mkdir -p $(@D) && cp node_modules/qrcode-generator/dist/qrcode.js $@; \
	else echo "make: npm is missing: the page works, without QR codes" >&2; fi

# Install missing build packages first (a no-op when all are present).
deps:
	@sh scripts/deps.sh build

# Each object also depends on the headers it includes, as the compiler
# lists them (-MMD: $(BUILD)/lib/*.d), so that a change to lib/store.h's
# statement enum rebuilds every unit that numbers statements with it; the
# generated headers are named here, since a first build has no lists yet.
$(BUILD)/lib/%.o: lib/%.c lib/burnlink.h lib/internal.h $(BUILD)/schema.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(CFLAGS) $(SECTIONS) $(WARN) -MMD -MP -c -o $@ $<
-include $(wildcard $(BUILD)/lib/*.d)
$(BUILD)/lib/store_pg.o: $(BUILD)/schema-pg.h
$(BUILD)/lib/config.o: $(BUILD)/version.h

# The build's version (scripts/version.sh: VERSION, else git describe),
# rewritten only when it changes, so that an unchanged tree relinks nothing.
$(BUILD)/version.h: FORCE
	@mkdir -p $(@D)
	@v=$$(sh scripts/version.sh) && printf '#define BL_BUILD_VERSION "%s"\n' "$$v" >$@.tmp && \
	    if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

ifneq ($(SECCOMP),0)
$(BUILD)/lib/sandbox.o: $(BUILD)/seccomp_bpf.h
endif

# The seccomp filters, compiled once here rather than in every process. The
# generator is built without $(CFLAGS): a sanitizer build needs none.
$(BUILD)/seccomp-gen: scripts/seccomp-gen.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -O2 $(WARN) -o $@ $< -lseccomp

$(BUILD)/seccomp_bpf.h: $(BUILD)/seccomp-gen
	$(BUILD)/seccomp-gen > $@.tmp && mv $@.tmp $@

$(BUILD)/schema-pg.h: schema-pg.sql scripts/sql2c.sh
	@mkdir -p $(@D)
	sh scripts/sql2c.sh bl_schema_pg_sql schema-pg.sql > $@

# The limits of lib/fields.c for the page and the CLI, www/assets/limits.js,
# are committed: the CLI runs from a clone without make and as the cli/
# package, the page from www/. tests/cli/limits.test.mjs fails when the file
# differs from what the table prints; `make limits` rewrites it.
$(BUILD)/limits-gen: scripts/limits-gen.c lib/fields.c lib/error.c lib/burnlink.h lib/internal.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -O2 $(WARN) -o $@ scripts/limits-gen.c lib/fields.c lib/error.c

limits: $(BUILD)/limits-gen
	$(BUILD)/limits-gen > www/assets/limits.js.tmp && mv www/assets/limits.js.tmp www/assets/limits.js

# The web servers' routing and the tests' map of routes, from the route table
# (lib/route.c): scripts/routes-gen.c writes $(BUILD)/routes/, which
# scripts/genconf.sh puts in place of the @ROUTES_*@ lines of conf/*.in, and
# tests/lib/openapi.mjs reads (routes.json). It fails on a program of cgi-bin/
# without a route, or a route without a program.
ROUTES = $(BUILD)/routes/routes.json
$(BUILD)/routes-gen: scripts/routes-gen.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ scripts/routes-gen.c $(LIBA) $(LIBS)

$(ROUTES): $(BUILD)/routes-gen $(CGI_SRC)
	@mkdir -p $(@D)
	$(BUILD)/routes-gen $(@D) $(notdir $(CGI_SRC:.c=))

$(BUILD)/digest.c: $(ROUTES)
	@d=$$(cat $(BUILD)/routes/ROUTES_DIGEST) && \
	    printf '/* generated by make from %s */\nextern const char bl_routes_digest[];\nconst char bl_routes_digest[] = "%s";\n' \
	    "$(BUILD)/routes/ROUTES_DIGEST" "$$d" >$@.tmp && \
	    if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(DIGEST_O): $(BUILD)/digest.c
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -c -o $@ $<

routes: $(ROUTES)

# The schemas are compiled in, so a program needs no file beside it to start.
$(BUILD)/schema.h: schema.sql scripts/sql2c.sh
	@mkdir -p $(@D)
	sh scripts/sql2c.sh -a bl_schema_sql schema.sql > $@

$(LIBA): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BIN)cgi-bin/%: cgi-bin/%.c $(LIBA) $(DIGEST_O)
	@mkdir -p $(@D)
	@echo "  LD  $@"; sh scripts/quietld.sh $(CC) $(CPPFLAGS) $(CFLAGS) $(SECTIONS) $(WARN) $(LDFLAGS) -o $@ $< $(DIGEST_O) $(LIBA) $(LDSTATIC) $(GCSECTIONS) $(LIBS)

$(BIN)cron/%: cron/%.c $(LIBA) $(DIGEST_O)
	@mkdir -p $(@D)
	@echo "  LD  $@"; sh scripts/quietld.sh $(CC) $(CPPFLAGS) $(CFLAGS) $(SECTIONS) $(WARN) $(LDFLAGS) -o $@ $< $(DIGEST_O) $(LIBA) $(LDSTATIC) $(GCSECTIONS) $(LIBS)

$(BIN)tools/%: tools/%.c $(LIBA) $(DIGEST_O)
	@mkdir -p $(@D)
	@echo "  LD  $@"; sh scripts/quietld.sh $(CC) $(CPPFLAGS) $(CFLAGS) $(SECTIONS) $(WARN) $(LDFLAGS) -o $@ $< $(DIGEST_O) $(LIBA) $(LDSTATIC) $(GCSECTIONS) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIBA) $(LIBS)

# Serve the page and API in the foreground (Ctrl-C stops it). BACKEND=postgres
# (or a postgresql:// BURNLINK_DB) serves PostgreSQL with the programs of
# `make pg`; without BURNLINK_DB on a throwaway cluster in var/pg.
run: all
	@sh scripts/deps.sh run $(if $(filter apache,$(SERVER)),apache)
	@case "$(BACKEND) $$BURNLINK_DB" in postgres\ * | *\ postgres*) \
	    [ -n "$$BURNLINK_BIN" ] || $(MAKE) --no-print-directory pg ;; esac
	@PORT=$(PORT) SERVER=$(SERVER) BACKEND=$(BACKEND) sh scripts/run.sh

# A sanitizer build of every program, in build/asan/ (dynamically linked).
asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan-obj BIN=build/asan/ LDSTATIC= \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    programs

# A plain dynamically linked build for valgrind (it cannot see malloc in a
# static binary), in build/dyn/. Without seccomp: valgrind 3.19 does not know
# the seccomp system call, and a filter would confine valgrind itself. With
# BL_FREE_AT_EXIT: a CGI process closes its stores before it exits, so the
# leak checks (valgrind, tests/faults) see every allocation freed (lib/ctx.c).
dyn: deps
	@$(MAKE) --no-print-directory BUILD=build/dyn-obj BIN=build/dyn/ LDSTATIC= \
	    CFLAGS="-O1 -g -DBL_FREE_AT_EXIT" SECCOMP=0 programs

programs: $(CGI_BIN) $(CRON_BIN) $(TOOL_BIN)

# For bench/cleanup.mjs only: a cron/cleanup that removes every expired row in
# one transaction (BL_BENCH_CLEAN_ONE, lib/secret.c), the steps' yardstick, in
# build/one/. Never installed or shipped.
one: deps
	@$(MAKE) --no-print-directory BUILD=build/one-obj BIN=build/one/ \
	    CFLAGS="$(CFLAGS) -DBL_BENCH_CLEAN_ONE" build/one/cron/cleanup

# The programs with the PostgreSQL backend, in build/pg/ (the pg suite runs them),
# and the unit tests over that library, in build/pg-obj/tests/ (tests/pg/unit.test.mjs
# runs test_store against a PostgreSQL database).
pg: deps
	@sh scripts/deps.sh pg
	@$(MAKE) --no-print-directory BUILD=build/pg-obj BIN=build/pg/ PG=1 programs units

units: $(UNIT_BIN)

# make check builds on every core (JOBS, default all of them): the programs,
# then the unit tests and the sanitizer, valgrind and PostgreSQL builds side
# by side (each in its own build directory).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check:
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh scripts/deps.sh test browser pg deb
	@$(MAKE) --no-print-directory -j$(JOBS) $(UNIT_BIN) asan dyn pg
	@sh tests/run.sh

test-unit: all
	@$(MAKE) --no-print-directory $(UNIT_BIN)
	@sh tests/run.sh unit

test-cgi test-http test-cli test-browser test-asan test-valgrind test-pg test-i18n: all
	@sh tests/run.sh $(@:test-%=%)

test-pg: pg

install: all
	@sh scripts/install.sh "$(DESTDIR)" "$(PREFIX)"

dist: all
	@sh scripts/dist.sh

# The tarball's programs on x86-64 Linux (scripts/dist.sh): one static binary
# holding them all, bin/burnlink-programs (scripts/multicall.c; cron/ and
# tools/ mains compiled under other names), and a stub per program file
# (scripts/stub.c, no C library) that executes it under its own name. One
# copy of OpenSSL, SQLite and json-c instead of 22.
MULTI_MAINS = $(CRON_SRC:cron/%.c=$(BUILD)/dist/%.o) $(TOOL_SRC:tools/%.c=$(BUILD)/dist/%.o)

$(BUILD)/dist/%.o: cron/%.c scripts/multicall.h lib/burnlink.h lib/internal.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(CFLAGS) $(SECTIONS) $(WARN) -include scripts/multicall.h \
	    -Dmain=bl_main_$(subst -,_,$*) -c -o $@ $<

$(BUILD)/dist/%.o: tools/%.c scripts/multicall.h lib/burnlink.h lib/internal.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(CFLAGS) $(SECTIONS) $(WARN) -include scripts/multicall.h \
	    -Dmain=bl_main_$(subst -,_,$*) -c -o $@ $<

$(BUILD)/dist/burnlink-programs: scripts/multicall.c scripts/multicall.h $(MULTI_MAINS) $(LIBA) $(DIGEST_O)
	@mkdir -p $(@D)
	@echo "  LD  $@"; sh scripts/quietld.sh $(CC) $(CPPFLAGS) -Iscripts $(CFLAGS) $(SECTIONS) $(WARN) $(LDFLAGS) -o $@ scripts/multicall.c \
	    $(MULTI_MAINS) $(DIGEST_O) $(LIBA) $(LDSTATIC) $(GCSECTIONS) $(LIBS)

$(BUILD)/dist/stub: scripts/stub.c
	@mkdir -p $(@D)
	$(CC) -Os -static -nostdlib -fno-stack-protector -fno-asynchronous-unwind-tables -fno-pie \
	    -no-pie $(WARN) -Wl,--build-id=none -o $@ $<

# The Debian packages, burnlink and burnlink-cli, in build/deb-out/
# (debian/, scripts/deb.sh; docs/ADMIN.md, "The Debian package").
deb: all
	@sh scripts/deps.sh deb
	@sh scripts/deb.sh

screenshots: all
	@sh scripts/deps.sh test browser
	@sh tests/run.sh screenshots

# Fuzz each parser for FUZZ_TIME seconds (clang, libFuzzer); the corpus grows
# in build/fuzz/corpus/, crashes land in build/fuzz/artifacts/. FUZZERS=name...
FUZZ_TIME ?= 60
fuzz: deps
	@sh scripts/deps.sh test
	@FUZZ_TIME=$(FUZZ_TIME) sh tests/fuzz/run.sh fuzz

# The benchmark's helpers: the CGI floor (static, like the programs), the
# FastCGI floor, the seeder and the CGI driver (bench/run.sh, docs/PERFORMANCE.md).
BENCH_BIN = $(BUILD)/bench/null $(BUILD)/bench/null-fcgi $(BUILD)/bench/seed $(BUILD)/bench/drive

$(BUILD)/bench/null: bench/null.c bench/null.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -static

$(BUILD)/bench/null-fcgi: bench/null-fcgi.c bench/null.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< -lfcgi $(LDSTATIC)

$(BUILD)/bench/drive: bench/drive.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $<

$(BUILD)/bench/seed: bench/seed.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD) $(CFLAGS) $(WARN) -o $@ $< $(LIBA) $(LDSTATIC) $(LIBS)

# MODE=cgi (default), fastcgi, or "cgi fastcgi" (a result file each).
# BACKEND=postgres measures the same cases on a throwaway PostgreSQL cluster
# (the programs of `make pg`, directly and through PgBouncer) beside SQLite.
# bench/pg.mjs (run by hand) breaks a PostgreSQL CGI request down further.
bench: all
	@sh scripts/deps.sh bench $(if $(filter postgres,$(BACKEND)),pg)
	@$(MAKE) --no-print-directory $(BENCH_BIN)
	@if [ "$(BACKEND)" = postgres ]; then $(MAKE) --no-print-directory pg && \
	    $(MAKE) --no-print-directory BUILD=build/pg-obj BIN=build/pg/ PG=1 build/pg-obj/bench/seed; fi
	@for m in $(or $(MODE),cgi); do \
	    BENCH_HELPERS=$(BUILD)/bench MODE=$$m BACKEND=$(BACKEND) sh bench/run.sh || exit 1; done

# Where a CGI request spends its time, per case (bench/profile.sh,
# docs/PERFORMANCE.md): instructions (callgrind, on copies built without
# seccomp, which would confine valgrind itself, in build/prof/), system calls
# (strace), page faults and CPU time (bench/drive).
profile: all
	@sh scripts/deps.sh profile
	@$(MAKE) --no-print-directory $(BENCH_BIN)
	@$(MAKE) --no-print-directory BUILD=build/prof-obj BIN=build/prof/ SECCOMP=0 programs
	@BENCH_HELPERS=$(BUILD)/bench PROF_BIN=build/prof sh bench/profile.sh

clean:
	rm -rf build $(CGI_BIN) $(CRON_BIN) $(TOOL_BIN)
