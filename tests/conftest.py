"""Put tests/ on sys.path so test modules can import the shared helpers (``strategies``)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
