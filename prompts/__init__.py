"""Every agent's prompts as versioned text files (`<agent>/v<N>.{system,user,repair}.txt`), installed
as package data of `bifrost.prompts` and read with `importlib.resources` (`bifrost.core.prompts`)."""
