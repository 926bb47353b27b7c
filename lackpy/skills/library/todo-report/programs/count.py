# How many notes each top-level folder holds (files at the top count under ".").
lines = skill_file("assets/markers.txt").splitlines()
markers = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
where = folder.strip("/") + "/**/*" if folder else "**/*"
counts = {}
for hit in grep("\\b(" + "|".join(markers) + ")\\b", where):
    if hit.get("truncated"):
        continue
    top = hit["path"].split("/")[0] if "/" in hit["path"] else "."
    counts[top] = counts.get(top, 0) + 1
dict(sorted(counts.items(), key=lambda item: -item[1]))
