# Summarise lackpy's own source: how many modules, how many lines, the largest ones.
files = find_files("lackpy/**/*.py")
sizes = {f: len(read_file(f).splitlines()) for f in files}
largest = sorted(sizes, key=lambda f: sizes[f], reverse=True)[:5]
{
    "modules": len(files),
    "lines": sum(sizes.values()),
    "largest": [f"{f} ({sizes[f]} lines)" for f in largest],
}
