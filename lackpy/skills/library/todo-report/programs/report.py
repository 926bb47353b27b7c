# The TODO report: every note, file by file (folder: where to look; None for everywhere).
lines = skill_file("assets/markers.txt").splitlines()
markers = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
where = folder.strip("/") + "/**/*" if folder else "**/*"
hits = grep("\\b(" + "|".join(markers) + ")\\b", where)
files = {}
for hit in hits:
    if hit.get("truncated"):
        continue
    files[hit["path"]] = files.get(hit["path"], []) + [str(hit["line"]) + ": " + hit["text"].strip()]
total = sum(len(notes) for notes in files.values())
{"notes": total, "files": len(files), "by_file": files}
