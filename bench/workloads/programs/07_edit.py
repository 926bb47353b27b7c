edit_file("README.md", "Status: draft", "Status: final")
read_file("README.md").count("final")
