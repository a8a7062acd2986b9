"""Hugging Face Space entry point (the card's `app_file`): a Gradio widget for this module."""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(
    str(Path(__file__).with_name("weighted_rank_correlation.py")), module_type="metric"
)
launch_gradio_widget(module)
