"""dicesight's web page: Flask app factory, JSON API, server-sent events, translations, static assets."""

from .app import create_app, server_message, set_join, stop_streams

__all__ = ["create_app", "server_message", "set_join", "stop_streams"]
