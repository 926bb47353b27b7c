"""The model tiers lackpy ships: Ollama, OpenAI-compatible servers, Anthropic, and llama.cpp in-process.

Each module holds one provider and imports its heavy or optional packages only
when the tier is used, so configuring one tier never costs the others.
``http`` is the small stdlib client the HTTP tiers share.
"""
