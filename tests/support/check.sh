# Checks shared by the shell tests (sourced, not run): each failed check prints
# what differed and counts in $failures; the test exits non-zero at its end
# when any did.
failures=0
# fail MESSAGE...
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# same NAME GOT WANT
same() {
  if [ "$2" != "$3" ]; then
    fail "$1"
    echo "  got:"
    printf '%s\n' "$2" | sed 's/^/    /'
    echo "  want:"
    printf '%s\n' "$3" | sed 's/^/    /'
  fi
}
