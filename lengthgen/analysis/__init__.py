"""Measurements on trained or synthetic models, statistics, and plotly figure builders."""
