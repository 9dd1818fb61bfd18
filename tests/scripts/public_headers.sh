#!/usr/bin/env bash
# Every public header compiles on its own and through loom.h, as C11 and as
# C++11, with -pedantic -Werror; and the shared library exports only loom_
# symbols.
source "$(dirname "$0")/../tools/lib.sh"
: "${LOOM_BUILD_DIR:=$LOOM_SOURCE_DIR/build}"
inc="$LOOM_SOURCE_DIR/include"
for h in loom.h $(cd "$inc" && ls loom/*.h); do
  printf '#include "%s"\nint loom_header_test_%s;\n' "$h" "$(echo "$h" | tr -c 'a-z0-9\n' _)" > "$TEST_TMP/h.c"
  expect "$h as C11" cc -std=c11 -Wall -Wextra -pedantic -Werror -I"$inc" -c "$TEST_TMP/h.c" -o "$TEST_TMP/h.o"
  if command -v c++ > /dev/null; then
    cp "$TEST_TMP/h.c" "$TEST_TMP/h.cpp"
    expect "$h as C++11" c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I"$inc" -c "$TEST_TMP/h.cpp" -o "$TEST_TMP/h.o"
  fi
done
so=$(ls "$LOOM_BUILD_DIR"/libloom.so.* 2>/dev/null | head -1)
if [ -n "$so" ]; then
  bad=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^loom_' || true)
  expect "only loom_ symbols exported (unexpected: $bad)" test -z "$bad"
else
  fail "no shared library in $LOOM_BUILD_DIR"
fi
finish
