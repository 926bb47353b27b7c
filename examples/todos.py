# Count TODO and FIXME markers per Python file of this repository, most first.
hits = grep(r"\b(TODO|FIXME)\b", glob="**/*.py")
per_file = {}
for hit in hits:
    per_file[hit["path"]] = per_file.get(hit["path"], 0) + 1
top = sorted(per_file, key=lambda path: per_file[path], reverse=True)[:5]
{"files": len(per_file), "markers": len(hits), "most": {path: per_file[path] for path in top}}
