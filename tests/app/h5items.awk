# Lists the objects, attributes and compound columns of an h5dump -H listing, one per
# line: /path, /path@attribute, /path:column (tests/app/schema_test.sh).
#   /path  /path@attribute  /path:column
function path(   i, p) {
  p = ""
  for (i = 1; i <= depth; i++) if (kind[i] == "G" || kind[i] == "D") p = p (name[i] == "/" ? "" : "/" name[i])
  return p == "" ? "/" : p
}
function inside(k,   i) { for (i = depth; i >= 1; i--) if (kind[i] == k) return 1; return 0 }
{
  line = $0
  if (match(line, /^ *(GROUP|DATASET|ATTRIBUTE) "[^"]*" \{$/)) {
    split(line, parts, "\"")
    k = substr(line, match(line, /[A-Z]/), 1)
    if (k == "A") { print path() "@" parts[2]; depth++; kind[depth] = "A"; name[depth] = parts[2]; next }
    depth++; kind[depth] = k; name[depth] = parts[2]
    if (parts[2] != "/") print path()
    next
  }
  if (match(line, /"[^"]*";$/) && !inside("A")) {  # a compound member
    split(line, parts, "\""); print path() ":" parts[2]
  }
  if (line ~ /\{ *$/) { depth++; kind[depth] = "X"; name[depth] = "" ; next }
  if (line ~ /^ *\}/) depth--
}
