"""The committed case sets, installed as `tablebench.casesets`: data only (one folder per set).

This file makes the folder a package so an editable install and the wheel serve the same files
(`tablebench.cases.installed_case_sets`); nothing is imported from here.
"""
