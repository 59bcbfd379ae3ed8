"""dicesight vision package."""
