total = 0
for path in find_files("**/*.py"):
    total += read_file(path).count("TODO")
total
