/* config: being written */
