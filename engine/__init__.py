"""dicesight engine package."""
