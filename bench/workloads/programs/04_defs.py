names = []
for path in find_files("src/pkg1/*.py"):
    for line in read_file(path).splitlines():
        if line.startswith("def "):
            names.append(line[4:].split("(")[0])
len(names)
