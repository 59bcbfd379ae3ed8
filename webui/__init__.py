"""dicesight webui package."""
