counts = {}
for path in find_files("src/pkg2/*.py"):
    for word in read_file(path).split():
        counts[word] = counts.get(word, 0) + 1
sorted(counts.items(), key=lambda item: item[1], reverse=True)[:3]
