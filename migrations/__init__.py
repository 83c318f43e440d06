"""Alembic migrations of the tablebase catalog, shipped inside the package.

``tablebase.store`` runs them on every open; ``env.py`` takes the connection it is given.
"""
