"""From an intent to a program: inference tiers, prompt, sanitize, repairs, and the dispatcher that ties them."""
