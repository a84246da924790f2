// placeholder while the loader is written
