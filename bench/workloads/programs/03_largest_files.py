lengths = [{"path": path, "lines": len(read_file(path).splitlines())} for path in find_files("src/**/*.py")]
ranked = sorted(lengths, key=lambda item: item["lines"], reverse=True)[:5]
[item["path"] for item in ranked]
