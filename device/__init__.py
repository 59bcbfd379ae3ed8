"""dicesight device package."""
