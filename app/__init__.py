"""Embedding Lab's Streamlit app: the frame, the pages, services and UI pieces."""
